from tests.games.conftest import alice, api, bob, charlie, make_user  # noqa: F401  (the same cast)
