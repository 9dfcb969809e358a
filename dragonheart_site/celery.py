"""The Celery app. Redis is the broker when REDIS_URL is set (through core.broker's transport),
and workers and beat are processes of their own (`celery -A dragonheart_site worker|beat`).
Without it (the embedded default) the broker is in memory and `manage.py runserver` runs the
workers and beat in threads beside the server (core/embedded_worker.py), so the site works on a
machine with nothing else running, its bot moves and reviews made with no page open."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dragonheart_site.settings")

app = Celery("dragonheart_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
