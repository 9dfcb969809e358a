from __future__ import annotations

from django.conf import settings
from django.db import models

from ratings.glicko import START_DEVIATION, START_RATING, START_VOLATILITY, Glicko


class Rating(models.Model):
    """A player's rating after their last rated game (the deviation grows from ``rated_at``
    on; ratings.services.shown gives it as of now)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    rating = models.FloatField(default=START_RATING)
    deviation = models.FloatField(default=START_DEVIATION)
    volatility = models.FloatField(default=START_VOLATILITY)
    games = models.PositiveIntegerField(default=0, help_text="Rated games played.")
    rated_at = models.DateTimeField(null=True, blank=True, help_text="When the last rated game ended.")
    # When the fifth-last rated game ended: "at least five rated games in the last 90 days" is
    # then one indexed comparison, whatever the number of games.
    fifth_last_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["fifth_last_at", "-rating"], name="rating_established")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.rating:.0f} ± {self.deviation:.0f}"

    @property
    def glicko(self) -> Glicko:
        return Glicko(self.rating, self.deviation, self.volatility)


class RatingChange(models.Model):
    """One player's rating before and after one rated game: the history a player's page draws."""

    # The game by its id, not a foreign key: this floor lies below the games app.
    game_id = models.CharField(max_length=16)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(help_text="1 a win, 0.5 a draw, 0 a loss.")
    rating_before = models.FloatField()
    deviation_before = models.FloatField(help_text="Grown by the idle time before the game.")
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    rated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game_id", "user"], name="rating_change_once")]
        indexes = [models.Index(fields=["user", "rated_at"], name="rating_change_user_time")]

    def __str__(self) -> str:
        return f"{self.game_id} {self.user_id}: {self.rating_before:.0f} → {self.rating_after:.0f}"
