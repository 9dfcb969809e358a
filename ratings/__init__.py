"""Glicko-2 ratings of the games between two people: a projection of the finished rated games,
written in the transaction that ends a game and rebuilt from them by ``rebuild_ratings``. This
floor knows players and numbers only; ``games`` hands it each result."""
