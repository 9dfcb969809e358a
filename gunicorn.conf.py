"""gunicorn's settings for the site, read from the working directory by every gunicorn started
there: the Dockerfile's, docker-compose.yml's and the benchmarks'. The command line names the
application and the address."""

import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any

# Sync workers, as the service was designed and measured for (benchmarks/api_load.py): 4 on
# this 2-core machine gave the most plays per second (2 to 8 measured). The stream service
# chooses its own on its command line, which gunicorn reads over this file
# (--worker-class=dragonheart_site.stream_worker.StreamWorker --workers=<one a core>:
# docker-compose.yml); everything below, the drain included, applies to both.
worker_class = "sync"
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))

# Each worker proves it is alive by touching a file after every request. In /tmp on a disk
# that is a metadata write per request, which the kernel's writeback threads then pay for
# (0.1 to 0.2 ms of CPU a request here); in memory it costs nothing. gunicorn's own
# deployment notes give the same advice.
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"

# Draining (core/drain.py): on the first SIGTERM the node keeps serving for DRAIN_SECONDS while
# its readiness (GET /api/health/ready/) answers 503, so that the load balancer stops sending it
# requests before it stops listening; then it stops gracefully, as gunicorn does on SIGTERM:
# it closes its sockets and each worker finishes the request it is serving (up to
# graceful_timeout, 30 s), except that a stream worker ends its streams at once (they would
# never finish by themselves). A second SIGTERM stops it at once, gracefully; SIGINT and
# SIGQUIT still stop it quickly.
# gunicorn's control socket is unused here, and its default path ($HOME/.gunicorn/gunicorn.ctl)
# would be shared by every gunicorn of one user on one host: the web nodes of
# benchmarks/cluster.py, the tests' servers.
control_socket_disable = True

DRAIN_SECONDS = float(os.environ.get("DRAIN_SECONDS", "5"))


def on_starting(server: Any) -> None:
    from core import drain

    # Before any worker is forked: each inherits the flag's name.
    drain.name_file(Path(tempfile.gettempdir()) / f"dragonheart-draining-{os.getpid()}")


def when_ready(server: Any) -> None:
    from core import drain

    stop = server.handle_term  # gunicorn's: raises StopIteration, and the master stops gracefully

    def handle_term() -> None:
        if drain.draining():
            server.log.info("draining over: stopping gracefully")
            stop()
        drain.start()
        server.log.info("draining for %g s: readiness answers 503", DRAIN_SECONDS)
        # The master's loop handles the signal this sends like the first one.
        timer = threading.Timer(DRAIN_SECONDS, os.kill, (os.getpid(), signal.SIGTERM))
        timer.daemon = True
        timer.start()

    server.handle_term = handle_term


def on_exit(server: Any) -> None:
    from core import drain

    drain.clear()
