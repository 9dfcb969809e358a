"""Django's runserver (as whitenoise's wrapper serves it, static files left to whitenoise) with
the site's background work beside it when there is no broker outside the process: without
Redis, the broker is in memory and the serving process runs Celery's workers and beat in
threads (core/embedded_worker.py), so that the README's one command is the whole site.

Only the process that serves runs them: with the autoreloader that is its child (inner_run runs
there, never in the parent that watches the files), and no other command (migrate, shell, the
tests) starts them."""

from __future__ import annotations

import atexit
import logging
from typing import TYPE_CHECKING, Any

from celery import current_app

from core import embedded_worker

if TYPE_CHECKING:  # whitenoise has no types; its command is a subclass of this one
    from django.contrib.staticfiles.management.commands.runserver import Command as Runserver
else:
    from whitenoise.runserver_nostatic.management.commands.runserver import Command as Runserver


class Command(Runserver):
    def inner_run(self, *args: Any, **options: Any) -> None:
        if embedded_worker.wanted(current_app):
            # The console is the server's: a line for every task received and done (the sweeps
            # alone make several a minute) would drown its requests. A failure still shows.
            for name in ("celery.worker.strategy", "celery.app.trace"):
                logging.getLogger(name).setLevel(logging.WARNING)
            running = embedded_worker.start(current_app)
            # On Ctrl-C or the autoreloader's restart: the task under way finishes first.
            atexit.register(running.stop)
            self.stdout.write("Background worker: Celery workers and beat in threads of this process.\n")
        super().inner_run(*args, **options)
