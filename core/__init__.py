"""The bottom floor: the framework-level code every app shares, below accounts, outbox, games
and notifications and above the engine alone. The API's errors and their JSON (api_errors),
the kinds of refusal a service raises (errors), the throttles and their counter (throttling,
cache), the middleware, the API's parser and renderer, the health and readiness views and
the drain flag (health, drain), the schema and its docs (api_docs; their
routes in api_urls), the Celery broker transport, the one way work with a due time is queued
(deferred) and the worker that runs it beside `manage.py runserver` in the embedded default
(embedded_worker, management/commands/runserver) live here because every app needs them and
none owns them.
It imports nothing from the apps (lint-imports, tests/test_floors.py): the apps stand on it.

Some of it is library code done faster or mended: Django's, DRF's, django-csp's, kombu's; a
few such fast paths live in the apps. Every one of them, in the whole project, is a row of
the table below: what it replaces, the library names it touches that no library documents
(tests/core/test_checked_versions.py asserts they are still there and pins the releases they
were checked against), the test that compares it with the code it replaces, and what it
saves. An override that saves nothing measurable has no reason to be here: five that saved a
few µs of a request of 1 to 2 ms went on 2026-12-02 (the Message and Locale middleware, DRF's
content negotiation, an orjson JSONField, a play's body read beside its serializer), and
Django's and DRF's own code does their work again.

+--------------------+---------------------------------------------------------------------------------------+
| Override           | What it replaces, the names it touches, the test that compares them, what it saves    |
+====================+=======================================================================================+
| core.middleware    | Replaces: django-csp's CSPMiddleware, which builds the policy for every response.     |
| CSPMiddleware      | Touches: nothing private: csp.utils.build_policy and csp.constants, once a process.   |
|                    |   No view or template may use django-csp's decorators or nonces; a test checks it.    |
|                    | Compared: tests/security/test_csp_header_cache.py                                     |
|                    |   test_the_headers_are_the_ones_django_csps_middleware_sets                           |
|                    | Saves: 3.6 µs a response instead of 78 (5%) [O]                                       |
+--------------------+---------------------------------------------------------------------------------------+
| core.renderers     | Replaces: DRF's JSONRenderer.render (the standard library's json), with orjson.       |
| JSONRenderer       | Touches: JSONRenderer.get_indent, compact, ensure_ascii, encoder_class (undocumented) |
|                    | Compared: tests/api/test_renderers.py                                                 |
|                    |   test_any_document_is_rendered_as_drf_renders_it                                     |
|                    |   test_game_views_and_errors_are_the_bytes_drf_writes                                 |
|                    | Saves: 37 µs a game view instead of 158 (23%) [O]                                     |
+--------------------+---------------------------------------------------------------------------------------+
| core.parsers       | Replaces: DRF's JSONParser.parse, which lets a RecursionError through as a 500.       |
| JSONParser         | Touches: nothing private                                                              |
|                    | Compared: tests/api/test_bodies.py (the body 'nested past the decoder')               |
|                    |   test_every_api_route_answers_a_bad_body_with_a_json_error_and_writes_nothing        |
|                    | Saves: nothing: a mend, not a fast path (a 400 where DRF gives a 500)                 |
+--------------------+---------------------------------------------------------------------------------------+
| core.throttling    | Replaces: DRF's ScopedRateThrottle, which reads and writes back a pickled list of the |
| WindowScoped       |   client's request times (two round trips, racy); here one INCR in fixed windows.     |
| RateThrottle,      | Touches: ScopedRateThrottle.scope_attr, get_rate, parse_rate, get_cache_key, timer    |
| core.cache         |   (undocumented); django-redis' raw client, RedisCache.client.get_client(write=True)  |
| count_hit          | Compared: nothing compares it with DRF's, whose sliding window counts otherwise on    |
|                    |   purpose; tests/core/test_throttling.py tests its windows and its counter:           |
|                    |   test_the_request_over_the_limit_is_refused_until_the_next_window                    |
|                    |   test_the_counter_is_atomic_under_concurrent_hits                                    |
|                    | Saves: 194 µs a request instead of 365 on Redis (53%) [P]; 26 instead of 36 in local  |
|                    |   memory (72%) [O]                                                                    |
+--------------------+---------------------------------------------------------------------------------------+
| core.broker        | Replaces: kombu's Redis Channel.close, which stops at a dead BRPOP read when Redis    |
| RedisChannel       |   goes away, so that the worker exits.                                                |
|                    | Touches: kombu Channel._in_poll, Channel._brpop_read                                  |
|                    | Compared: tests/faults/test_worker_survives_redis.py (if it passes without the mend,  |
|                    |   the mend can go)                                                                    |
|                    | test_a_worker_holding_a_task_when_redis_is_killed_lives_on_and_the_task_is_done_once  |
|                    | Saves: nothing: a mend, not a fast path (the worker lives on)                         |
+--------------------+---------------------------------------------------------------------------------------+
| core.embedded_     | Replaces: nothing of a library's: Celery has no public way to run a worker in a       |
| worker             |   thread of a process that is not Celery's (the embedded default's one command).      |
|                    | Touches: celery.worker.state.should_terminate (undocumented), set to stop the worker  |
|                    |   loops as celery.contrib.testing's worker does                                       |
|                    | Compared: tests/core/test_embedded_worker.py, tests/core/test_one_command_site.py     |
|                    | Saves: nothing: the site's background work without Redis, not a fast path            |
+--------------------+---------------------------------------------------------------------------------------+
| accounts.          | Replaces: a database lookup of the token's user on every request: each process keeps  |
| authentication     |   what it read for a second; the header is read from META, not DRF's request.headers. |
| TokenAuthen-       | Touches: nothing private                                                              |
| tication           | Compared: tests/accounts/test_api_accounts.py (the memo, the revocations it delays)   |
|                    |   test_a_token_is_looked_up_in_one_query_then_not_again_within_the_second             |
|                    |   test_another_server_process_stops_accepting_a_revoked_token_within_a_second         |
|                    | Saves: 19 µs a request instead of 1,053 on SQLite (2%) [O]; of 1,569 on PostgreSQL    |
|                    |   [P]                                                                                 |
+--------------------+---------------------------------------------------------------------------------------+
| games.selectors    | Replaces: Game.objects.filter(pk=...).first(), compiled anew for every read of this   |
| game_by_id         |   28-column row; here the ORM's own SQL and converters, made once.                    |
|                    | Touches: QuerySet.query, Query.get_compiler, SQLCompiler.as_sql, .select,             |
|                    |   .get_converters, Col.target (Django's compiler internals); Model.from_db            |
|                    | Compared: tests/games/test_statements.py                                              |
|                    |   test_game_by_id_reads_the_row_as_the_orm_does                                       |
|                    | Saves: 263 µs a read instead of 1,619 on SQLite (16%) [O]; 330 instead of 1,491 on    |
|                    |   PostgreSQL (22%) [P]                                                                |
+--------------------+---------------------------------------------------------------------------------------+
| games.event_log    | Replaces: a play's writes through the ORM (QuerySet.update and bulk_create, compiled  |
| statements         |   on every play) in a transaction; on PostgreSQL one statement, no BEGIN, no COMMIT.  |
|                    | Touches: Model._meta (get_field, pk, concrete_fields, db_table), Field.db_returning,  |
|                    |   obj._state.adding and .db, connection.ops.quote_name                                |
|                    | Compared: tests/games/test_statements.py                                              |
|                    |   test_an_insert_stores_what_bulk_create_stores                                       |
|                    |   test_an_update_changes_only_the_row_that_matches_and_stores_what_update_stores      |
|                    |   test_update_then_insert_writes_the_rows_as_the_orm_does_and_reads_back_their_keys   |
|                    | Saves: 1,040 µs a play's writes instead of 2,018 on SQLite (52%) [O]; 1,066 instead   |
|                    |   of 3,802 on PostgreSQL (28%) [P]                                                    |
+--------------------+---------------------------------------------------------------------------------------+
| ratings.glicko     | Replaces: glicko2's Player._f, the volatility's function, which has the player's      |
| _Player            |   rating where Glickman's paper has the deviation (right only for a 1500 player).     |
|                    | Touches: Player._f's signature and Player._tau (both undocumented)                    |
|                    | Compared: tests/ratings/test_glicko.py, with the paper's formula written out, and     |
|                    |   test_the_package_still_needs_the_fix, which fails once glicko2 has mended it        |
|                    | Saves: nothing: a mend, not a fast path (the paper's ratings)                         |
+--------------------+---------------------------------------------------------------------------------------+

[O] ``.venv/bin/python -m benchmarks.overrides``: the default settings (SQLite, the
local-memory cache). [P] The same with ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/…``
and ``REDIS_URL=redis://127.0.0.1:6379/…``. Each figure is this process's CPU per call, ours
and then the library's, with ours as a share of the library's: the median of seven runs, each
the best of five; the database server's CPU is not counted. Measured on 2026-12-02 on the
2-core machine of docs/service.md while other work loaded it (load average 2 to 11; a
pure-Python loop took three times as long as on a quiet machine): every figure is about 2.5
times a quiet run's (2026-12-01: 25.5 µs for django-csp's middleware, 63 for DRF's rendering
of a game view), the shares within a few points of it, and single runs moved by up to half.
What a call is worth to a request: benchmarks/inprocess.py measures whole requests (on
2026-11-30 0.28 ms of CPU for the bare health view, 0.88 ms to open a game, 2.1 ms for a
play; docs/service.md). With the five removed rows' code (A/B, six rounds each, loaded as
above) the health view took 0.56 ms instead of 0.64, a game 1.38 instead of 1.50, a play 3.8
instead of 4.8: a play's serializer alone is 0.17 ms of that; the rest is unexplained here
(single runs spread by ±0.5 ms) and wants a run on a quiet machine.
"""

from __future__ import annotations
