"""Players' pages and the leaderboard, for everyone, signed in or not: a player's rating with
its history drawn as a chart, their record overall and against each opponent, their current
and recent games; the same in the API. It reads the games and the ratings and writes nothing."""
