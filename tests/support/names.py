"""The cards' names as the edition prints them in each language: what the pages must show."""

from __future__ import annotations

CARD_NAMES = {
    "de": [
        "Schatztruhe",
        "Feuerdrache",
        "Versteinerter Drache",
        "Prinzessin",
        "Troll",
        "Zwerg",
        "Held",
        "Drachenjägerin",
        "Schiff",
    ],
    "fr": [
        "Coffre au trésor",
        "Dragon de feu",
        "Dragon pétrifié",
        "Princesse",
        "Troll",
        "Nain",
        "Héros",
        "Chasseuse de dragons",
        "Navire",
    ],
    "es": [
        "Cofre del tesoro",
        "Dragón de fuego",
        "Dragón petrificado",
        "Princesa",
        "Troll",
        "Enano",
        "Héroe",
        "Cazadora de dragones",
        "Barco",
    ],
    "uk": [
        "Скарбниця",
        "Вогненний дракон",
        "Скам'янілий дракон",
        "Чарівниця",
        "Троль",
        "Ґном",
        "Лицар",
        "Мисливиця",
        "Корабель",
    ],
}

ENGLISH_NAMES = [
    "Treasure chest",
    "Fire dragon",
    "Petrified dragon",
    "Princess",
    "Troll",
    "Dwarf",
    "Hero",
    "Dragon huntress",
    "Ship",
]
