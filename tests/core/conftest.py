from tests.games.conftest import alice, make_user  # noqa: F401  (the same cast)
