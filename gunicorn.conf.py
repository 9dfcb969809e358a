"""gunicorn's settings for the site, read from the working directory by every gunicorn started
there: the Dockerfile's, docker-compose.yml's and the benchmarks'. The command line names the
application and the address."""

import os

# Sync workers, as the service was designed and measured for (benchmarks/api_load.py): 4 on
# this 2-core machine gave the most plays per second (2 to 8 measured).
worker_class = "sync"
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))

# Each worker proves it is alive by touching a file after every request. In /tmp on a disk
# that is a metadata write per request, which the kernel's writeback threads then pay for
# (0.1 to 0.2 ms of CPU a request here); in memory it costs nothing. gunicorn's own
# deployment notes give the same advice.
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"
