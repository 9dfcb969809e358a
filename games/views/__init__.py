"""The games app's pages, one module a page: ``lobby`` (the home page, its poll, invitations),
``table`` (a game: the page, its polls, the play form, and the buttons that act on a game),
``history`` (a game turn by turn), ``links`` (a play from an email's link) and ``guide`` (how to
play). Each view validates its input and calls one service; what it shows comes from a context
builder beside ``games/table.py`` (``table``, ``lobby``, ``history_table``), built on presenters
like the API. Their routes are in ``games/urls.py``."""
