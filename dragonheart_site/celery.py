"""The Celery app. Redis is the broker when REDIS_URL is set (through core.broker's transport);
without it (the embedded default) tasks run in-process, so the site works on a machine with
nothing else running."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dragonheart_site.settings")

app = Celery("dragonheart_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
