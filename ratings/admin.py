from django.contrib import admin

from ratings.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = ("user", "rating", "deviation", "volatility", "games", "rated_at")
    search_fields = ("user__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin[RatingChange]):
    list_display = ("game_id", "user", "opponent", "score", "rating_before", "rating_after", "rated_at")
    search_fields = ("game_id", "user__username")
