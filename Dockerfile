# One image for every service of docker-compose.yml: web, worker and beat differ by command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# The runtime lock first, so that the libraries' layer is rebuilt only when the lock changes.
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine engine
COPY core core
COPY accounts accounts
COPY outbox outbox
COPY ratings ratings
COPY games games
COPY players players
COPY notifications notifications
COPY dragonheart_site dragonheart_site
COPY templates templates
COPY static static
COPY locale locale
COPY manage.py gunicorn.conf.py ./
# The project alone: its dependencies are the lock's.
RUN pip install --no-deps . && useradd --create-home dragonheart

# collectstatic needs settings but no secrets, database or Redis: the addresses are placeholders
# that production requires to be set (it connects to neither).
RUN DEBUG=0 SECRET_KEY=build-only-not-secret DATABASE_URL=postgres://build.invalid/none \
    REDIS_URL=redis://build.invalid:6379/0 python manage.py collectstatic --noinput

USER dragonheart
EXPOSE 8000
# Workers, their class and the heartbeat file: gunicorn.conf.py.
CMD ["gunicorn", "dragonheart_site.wsgi", "--bind=0.0.0.0:8000"]
