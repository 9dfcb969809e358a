"""The many-machines deployment on this machine, played through its load balancer while it is
failed on purpose; then every play, email, reply and periodic effect is counted.

    .venv/bin/python -m benchmarks.cluster [--games 6] [--duration 420] [--replica-delay 500]
                                           [--no-faults] [--keep]

It starts (benchmarks/topology.py), all on 127.0.0.1 on free ports under one temp directory: a
PostgreSQL 15 primary and a ``pg_basebackup -R`` streaming replica that lags on purpose
(``recovery_min_apply_delay``), PgBouncer (transaction mode) in front of the primary, Redis with
a replica and three Sentinels, an SMTP sink (in this process), ``manage.py migrate`` once as its
own step, three gunicorn web nodes behind HAProxy (checked on readiness), two Celery workers on
the default queue and one on "reviews", two beats, two outbox relays and two inbound SMTP
servers, each given the environment of docs/deploy.md.

Then it plays: human-vs-human games and bot games through the API, with an Idempotency-Key on
every play (a retry of a play that got no answer sends the same key), and games played by
email replies sent to the inbound servers. Some turns wait for their "your turn" email before
they are played (those emails are due). Players of their own go on a vacation that ends during
the run. Meanwhile, in this order: a web node is SIGKILLed and restarted, another SIGTERMed
(it should drain: readiness 503, then exit) and restarted, a worker is SIGKILLed while it sends
an email, Redis is failed over and its new master frozen for 10 s, PgBouncer is restarted, an
inbound server is SIGKILLed while it handles a reply, and PostgreSQL is failed over to the
replica (what the operator did is printed).

At the end it reads the database and prints: plays acknowledged / lost / doubled, emails due /
missing / doubled / stale, replies lost, read-your-writes violations, the reads the replica
served, periodic effects applied twice, and every HTTP answer other than 2xx, 4xx or a
documented 503, by kind. Exit status 0 when nothing is lost, doubled, missing, stale or missed,
1 otherwise. Every process it started is stopped by PID at the end, on Ctrl-C too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import select
import shutil
import signal
import smtplib
import socket
import socketserver
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default as default_policy
from queue import Empty, Queue
from typing import Any

import psycopg

from benchmarks.stack import PASSWORD, site_env
from benchmarks.topology import (
    DATABASE,
    SENTINEL_MASTER,
    Proc,
    Topology,
    free_port,
    make_root,
    redis_at,
    sentinel_master,
    socket_owner,
    wait_until,
)

DOMAIN = "in.cluster.invalid"
READY = "/api/health/ready/"
DOCUMENTED_503 = {"database_unavailable", "cache_unavailable"}
WAIT_EVERY = 7  # every 7th turn of an API game waits for its "your turn" email
EMAIL_WAIT = 330.0  # a lost send is taken again after the outbox claim's 2 minutes, by a sweep
REPLY_RETRIES = 300.0  # past the inbound claim's 2 minutes, after which a dead server's claim lapses
STALE_GRACE = 2.0  # seconds between a worker's "is the turn open?" and the send that may race a play
BEGAN = time.monotonic()


def say(message: str) -> None:
    print(f"[{time.monotonic() - BEGAN:6.1f} s] {message}", flush=True)


# --- The SMTP sink (the outgoing mail server) ---------------------------------------------------
@dataclass
class Mail:
    at: float  # wall clock, to compare with the database's timestamps
    recipients: list[str]
    message_id: str
    reply_to: str
    auto: bool  # Auto-Submitted: an answer to a reply


class Sink:
    """Accepts every message and notes it once the final 250 is written. On request it holds
    the next message before that 250 (``stall``): the benchmark kills the sender meanwhile,
    and a message whose sender is gone is discarded, as a mail server does."""

    def __init__(self) -> None:
        self.mails: list[Mail] = []
        self.discarded: list[str] = []
        self.lock = threading.Lock()
        self.stall = threading.Event()
        self.stalled: Queue[tuple[int, str, threading.Event]] = Queue()
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                sink.converse(self)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def converse(self, h: socketserver.StreamRequestHandler) -> None:
        h.wfile.write(b"220 sink\r\n")
        recipients: list[str] = []
        while line := h.rfile.readline():
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                h.wfile.write(b"250 sink\r\n")
            elif verb == b"RCPT":
                recipients.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                h.wfile.write(b"250 ok\r\n")
            elif verb == b"DATA":
                h.wfile.write(b"354 go on\r\n")
                self.accept(h, recipients, self.read_data(h))
                recipients = []
            elif verb == b"QUIT":
                h.wfile.write(b"221 bye\r\n")
                return
            else:  # MAIL, RSET, NOOP
                h.wfile.write(b"250 ok\r\n")

    @staticmethod
    def read_data(h: socketserver.StreamRequestHandler) -> bytes:
        lines = []
        while (data := h.rfile.readline()) not in (b".\r\n", b""):
            lines.append(data[1:] if data.startswith(b"..") else data)
        return b"".join(lines)

    def accept(self, h: socketserver.StreamRequestHandler, recipients: list[str], data: bytes) -> None:
        headers = BytesParser(policy=default_policy).parsebytes(data, headersonly=True)
        message_id = str(headers.get("Message-ID", "")).strip()
        with self.lock:  # one message stalls per request
            stall = self.stall.is_set()
            self.stall.clear()
        if stall:
            release = threading.Event()
            self.stalled.put((int(h.client_address[1]), message_id, release))
            release.wait(120)
            readable, _, _ = select.select([h.connection], [], [], 0)
            if readable and h.connection.recv(1, socket.MSG_PEEK) == b"":  # its sender died
                with self.lock:
                    self.discarded.append(message_id)
                return
        h.wfile.write(b"250 queued\r\n")
        mail = Mail(
            time.time(),
            recipients,
            message_id,
            str(headers.get("Reply-To", "")).strip(),
            str(headers.get("Auto-Submitted", "no")).lower() != "no",
        )
        with self.lock:
            self.mails.append(mail)

    def find(self, test: Callable[[Mail], bool]) -> list[Mail]:
        with self.lock:
            return [m for m in self.mails if test(m)]


# --- HTTP through the load balancer ---------------------------------------------------------------
@dataclass
class Answer:
    status: int  # 0: no answer at all
    body: Any
    kind: str
    replayed: bool = False


@dataclass
class Http:
    port: int
    kinds: Counter[str] = field(default_factory=Counter)
    where: dict[str, Counter[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        key: str | None = None,
        port: int | None = None,
    ) -> Answer:
        headers = {"Content-Type": "application/json", "Host": "127.0.0.1"}
        if token:
            headers["Authorization"] = f"Token {token}"
        if key:
            headers["Idempotency-Key"] = key
        conn = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=60)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            return self.count(Answer(0, None, f"no answer ({type(exc).__name__})"), method, path)
        finally:
            conn.close()
        answer = Answer(response.status, _json(data), "", response.getheader("Idempotent-Replayed") == "true")
        answer.kind = _kind(response.status, answer.body, data)
        return self.count(answer, method, path)

    def count(self, answer: Answer, method: str, path: str) -> Answer:
        with self.lock:
            self.kinds[answer.kind] += 1
            self.where.setdefault(answer.kind, Counter())[f"{method} {_route(path)}"] += 1
        return answer


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _kind(status: int, body: Any, data: bytes) -> str:
    if 200 <= status < 300:
        return "2xx"
    if 400 <= status < 500:
        return f"{status}"
    code = body.get("code") if isinstance(body, dict) else None
    if status == 503 and code in DOCUMENTED_503:
        return f"503 {code} (documented)"
    if code:
        return f"{status} {code}"
    text = data.decode(errors="replace").replace("\n", " ")
    origin = "haproxy" if "<h1>" in text and "server" in text.lower() else "site"
    return f"{status} from {origin}: {text[:70]!r}"


def _route(path: str) -> str:
    parts = path.strip("/").split("/")
    if len(parts) >= 3 and parts[1] == "games":
        return "/".join(["api", "games", "{id}", *parts[3:]])
    if len(parts) >= 3 and parts[1] == "players":
        return "api/players/{name}"
    return "/".join(parts)


# --- What the clients did, for the accounting at the end ---------------------------------------------
@dataclass
class Attempt:
    game: str
    version: int  # expected_version: the play, if made, is event version + 1
    seat: str
    cards: list[str] | None  # None: by email ("1", the first listed play)
    via: str
    acked: int | None = None


@dataclass
class Reply:
    game: str
    version: int
    seat: str
    message_id: str
    sent_at: float
    accepted: bool = False  # the inbound server said 250
    gave_up: bool = False  # its play never showed: the API played the turn


@dataclass
class Due:
    user_id: int
    game: str
    version: int
    note_id: int


@dataclass
class Ledger:
    attempts: dict[tuple[str, int], Attempt] = field(default_factory=dict)
    replies: list[Reply] = field(default_factory=list)
    due: dict[int, Due] = field(default_factory=dict)
    ryw_checks: int = 0
    ryw_violations: list[str] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # what the faults did
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Seat:
    name: str
    user_id: int
    email: str
    token: str = ""


@dataclass
class Table:
    kind: str  # human | bot | mail
    seats: dict[str, Seat]
    rng: random.Random
    game: str = ""
    turns: int = 0
    unverified: dict[str, int] = field(default_factory=dict)  # seat → version its last 201 showed
    last_ack: tuple[str, int] | None = None  # this game's last acknowledged play: seat, version


class Db:
    """The harness's own queries, each on a new connection through PgBouncer (which follows
    the primary), retried while PgBouncer or PostgreSQL is being restarted."""

    def __init__(self, url: str) -> None:
        self.url = url

    def rows(self, sql: str, params: Any = (), limit: float = 90) -> list[tuple[Any, ...]]:
        began = time.monotonic()
        while True:
            try:
                with psycopg.connect(
                    self.url, autocommit=True, prepare_threshold=None, connect_timeout=5
                ) as conn:
                    return conn.execute(sql, params).fetchall()
            except psycopg.OperationalError:
                if time.monotonic() - began > limit:
                    raise
                time.sleep(0.5)


# --- The run ------------------------------------------------------------------------------------
@dataclass
class Run:
    args: argparse.Namespace
    topo: Topology
    http: Http
    sink: Sink
    db: Db
    env: dict[str, str]
    run_id: str
    ledger: Ledger = field(default_factory=Ledger)
    stop: threading.Event = field(default_factory=threading.Event)  # clients: no new turn
    kill_inbound: threading.Event = field(default_factory=threading.Event)
    inbound_killed: Queue[str] = field(default_factory=Queue)
    inbound_turn: int = 0
    replica_before: tuple[int, int] = (0, 0)
    replica_after: tuple[int, int] | None = None
    events: dict[str, list[tuple[int, str, dict[str, Any]]]] = field(default_factory=dict)

    # HTTP with retries -------------------------------------------------------------------------
    def ask(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        key: str | None = None,
        limit: float = 120,
    ) -> Answer:
        """Until the site answers (a 2xx or a 4xx): what a careful client does; the same
        Idempotency-Key on every try."""
        began, delay = time.monotonic(), 0.2
        while True:
            answer = self.http.call(method, path, token, body, key)
            if 0 < answer.status < 500 or time.monotonic() - began > limit:
                return answer
            time.sleep(delay)
            delay = min(delay * 1.5, 2.0)

    def look(self, table: Table, seat: str) -> dict[str, Any] | None:
        """The game as one seat's client sees it; checks that client's last play is in it."""
        answer = self.ask("GET", f"/api/games/{table.game}/", table.seats[seat].token)
        if answer.status != 200:
            return None
        view: dict[str, Any] = answer.body
        if seat in table.unverified:
            acked = table.unverified.pop(seat)
            self.ryw_check(
                table, seat, acked, f"its view showed {view['version']}" if view["version"] < acked else ""
            )
        return view

    def ryw_check(self, table: Table, seat: str, version: int, missed: str) -> None:
        with self.ledger.lock:
            self.ledger.ryw_checks += 1
            if missed:
                self.ledger.ryw_violations.append(
                    f"game {table.game}: seat {seat} played to {version}; {missed}"
                )

    # Games -----------------------------------------------------------------------------------
    def new_game(self, table: Table) -> bool:
        a = table.seats["a"]
        opponent = "bot:random" if table.kind == "bot" else table.seats["b"].name
        answer = self.ask("POST", "/api/games/", a.token, {"opponent": opponent})
        if answer.status != 201:
            return False
        game = answer.body["id"]
        if table.kind != "bot":
            accepted = self.ask("POST", f"/api/games/{game}/accept/", table.seats["b"].token)
            if accepted.status != 200:
                return False
        table.game, table.turns = game, 0
        with self.ledger.lock:
            self.ledger.games.add(game)
        return True

    def after_game(self, table: Table) -> None:
        """What players read once a game is over, the replica's kind of reads; the last
        player to have played must find their play in the finished game's events and record."""
        if table.last_ack is not None:
            who, version = table.last_ack
            token = table.seats[who].token
            events = self.ask("GET", f"/api/games/{table.game}/events/?after={version - 1}&limit=5", token)
            record = self.ask("GET", f"/api/games/{table.game}/record/", token)
            missed = []
            if events.status == 200 and not any(e["seq"] >= version for e in events.body["results"]):
                missed.append("its events lacked it")
            if record.status == 409:  # "not over yet": a read from before the end
                missed.append("its record was refused as not over")
            self.ryw_check(table, who, version, "; ".join(missed))
        seat = table.seats["a"]
        self.ask("GET", f"/api/players/{seat.name}/", seat.token)
        self.ask("GET", "/api/leaderboard/", seat.token)
        table.game, table.last_ack = "", None

    def play_table(self, table: Table) -> None:
        view: dict[str, Any] | None = None
        viewer = "a"
        while not self.stop.is_set():
            if not table.game and not self.new_game(table):
                time.sleep(1)
                continue
            if view is None:
                view, viewer = self.look(table, "a"), "a"
                if view is None:
                    time.sleep(0.5)
                    continue
            if view["status"] == "finished":
                self.after_game(table)
                view = None
                continue
            mover = view["to_move"]
            if mover != viewer:
                if mover not in table.seats:  # the bot's turn: the worker plays it
                    time.sleep(0.3)
                    view = None
                    continue
                view, viewer = self.look(table, mover), mover
                continue
            view = self.turn(table, mover, view)

    def turn(self, table: Table, seat: str, view: dict[str, Any]) -> dict[str, Any] | None:
        """One turn of ``seat``; the view its client reads next (None: read afresh)."""
        table.turns += 1
        version = view["version"]
        if table.turns % 10 == 0:  # now and then a player looks at their own page
            self.ask("GET", f"/api/players/{table.seats[seat].name}/", table.seats[seat].token)
        if table.kind == "mail":
            if self.mail_turn(table, seat, version) or self.stop.is_set():
                return None
        elif table.kind == "human" and table.turns % WAIT_EVERY == 0:
            self.wait_for_turn_email(table.seats[seat], table.game, version)
            if self.stop.is_set():
                return None
        return self.api_turn(table, seat, view)

    def api_turn(self, table: Table, seat: str, view: dict[str, Any]) -> dict[str, Any] | None:
        plays = view.get("legal_plays") or []
        if not plays:
            return None
        play = table.rng.choice(plays)
        version = view["version"]
        attempt = Attempt(table.game, version, seat, list(play["cards"]), "api")
        with self.ledger.lock:
            self.ledger.attempts[(table.game, version)] = attempt
        body = {"cards": play["cards"], "choice": play["choice"], "expected_version": version}
        key = f"{self.run_id}-{table.game}-{version}"
        answer = self.ask("POST", f"/api/games/{table.game}/plays/", table.seats[seat].token, body, key)
        if answer.status != 201:
            return None
        attempt.acked = answer.body["version"]
        table.unverified[seat] = answer.body["version"]
        table.last_ack = (seat, answer.body["version"])
        return self.look(table, seat)  # the same client's next read: must show its play

    # Email ----------------------------------------------------------------------------------------
    def turn_note(self, user_id: int, game: str, version: int) -> int | None:
        """The outbox row of this turn (written in the play's transaction that began it)."""
        rows = self.db.rows(
            "SELECT id FROM notifications_notification "
            "WHERE user_id = %s AND kind = 'your_turn' AND key = %s",
            (user_id, f"{game}:{version}"),
        )
        return int(rows[0][0]) if rows else None

    def wait_for_turn_email(self, seat: Seat, game: str, version: int) -> Mail | None:
        """A player who waits for their turn's email before playing: that email is due."""
        note = self.turn_note(seat.user_id, game, version)
        if note is None:
            return None
        with self.ledger.lock:
            self.ledger.due[note] = Due(seat.user_id, game, version, note)
        marker = f"<notification-{note}@"
        began = time.monotonic()
        while not self.stop.is_set() and time.monotonic() - began < EMAIL_WAIT:
            found = self.sink.find(lambda m: m.message_id.startswith(marker))
            if found:
                return found[0]
            time.sleep(0.2)
        return None

    def mail_turn(self, table: Table, seat: str, version: int) -> bool:
        """Play by replying "1" to the turn's email; True once the game moved on."""
        player = table.seats[seat]
        mail = self.wait_for_turn_email(player, table.game, version)
        if mail is None or not mail.reply_to:
            return False
        message = EmailMessage()
        message["From"] = player.email
        message["To"] = mail.reply_to
        message["Subject"] = "Re: your turn"
        message["Message-ID"] = f"<{self.run_id}-{table.game}-{version}@cluster.invalid>"
        message.set_content("1\n\nOn Tue, Dec 1, 2026, Dragonheart wrote:\n> Your turn\n")
        reply = Reply(table.game, version, seat, str(message["Message-ID"]), time.time())
        with self.ledger.lock:
            self.ledger.replies.append(reply)
            self.ledger.attempts[(table.game, version)] = Attempt(table.game, version, seat, None, "mail")
        reply.accepted = self.send_reply(message)
        began = time.monotonic()
        while time.monotonic() - began < 90:
            view = self.look(table, seat)
            if view is not None and view["version"] > version:
                return True
            time.sleep(0.3)
        reply.gave_up = True
        return False  # its play never showed: the API plays this turn instead

    def send_reply(self, message: EmailMessage) -> bool:
        """Send as a mail server would: on failure (no answer, or 4xx: "try again later"), the
        same message again, to the other inbound server, sooner at first and then less often,
        for up to REPLY_RETRIES seconds (a mail server goes on for days)."""
        began, delay = time.monotonic(), 1.0
        while time.monotonic() - began < REPLY_RETRIES:
            self.inbound_turn += 1
            name = f"inbound-{1 + self.inbound_turn % 2}"
            proc = self.topo.procs[name]
            port = self.topo.ports[name]
            try:
                if self.kill_inbound.is_set() and proc.alive():
                    self.kill_inbound.clear()
                    self.send_and_kill(message, proc, port)
                else:
                    _smtp_send(port, message)
                    return True
            except (OSError, smtplib.SMTPException):
                time.sleep(delay)
                delay = min(delay * 2, 30.0)
        return False

    def send_and_kill(self, message: EmailMessage, proc: Proc, port: int) -> None:
        """Send ``message`` to ``proc`` and SIGKILL it the moment the reply is recorded in
        the database (its InboundMail row), before it has answered; raises as the sender
        sees it (the connection dropped)."""
        failure: list[BaseException] = []

        def send() -> None:
            try:
                _smtp_send(port, message)
            except BaseException as exc:
                failure.append(exc)

        sender = threading.Thread(target=send)
        sender.start()
        message_id = str(message["Message-ID"])
        began = time.monotonic()
        with psycopg.connect(self.db.url, autocommit=True, prepare_threshold=None) as conn:
            while sender.is_alive() and time.monotonic() - began < 30:
                if conn.execute(
                    "SELECT 1 FROM notifications_inboundmail WHERE message_id = %s", (message_id,)
                ).fetchone():
                    proc.kill_group()
                    break
                time.sleep(0.001)
        sender.join(60)
        what = "after its InboundMail row committed" if not proc.alive() else "never (it answered first)"
        self.inbound_killed.put(
            f"{proc.name} (pid {proc.pid}) SIGKILLed {what}; the sender "
            f"{'saw ' + type(failure[0]).__name__ if failure else 'got its 250'}"
        )
        if failure:
            raise OSError("inbound server died mid-message")


def _smtp_send(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.send_message(message)


# --- Faults ---------------------------------------------------------------------------------------
def fault_kill_web(run: Run) -> None:
    node = run.topo.procs["web-1"]
    node.kill_group()
    run.ledger.notes.append(f"web-1 SIGKILLed (master and workers, pid {node.pid})")
    time.sleep(2)
    start_web(run.topo, "web-1")
    say("web-1 restarted")


def fault_term_web(run: Run) -> None:
    node = run.topo.procs["web-2"]
    port = run.topo.ports["web-2"]
    node.send(signal.SIGTERM)
    began = time.monotonic()
    seen: list[tuple[float, str]] = []
    probe = Http(0)  # the operator watching the node, not a client
    while node.alive() and time.monotonic() - began < 90:
        answer = probe.call("GET", READY, port=port)
        status = str(answer.status) if answer.status else "refused"
        if not seen or seen[-1][1] != status:
            seen.append((time.monotonic() - began, status))
        time.sleep(0.1)
    exited = time.monotonic() - began
    trail = ", ".join(f"{status} at {at:.1f} s" for at, status in seen)
    drained = any(status == "503" for _, status in seen)
    run.ledger.notes.append(
        f"web-2 SIGTERMed: readiness {trail}; exited after {exited:.1f} s"
        + ("" if drained else " — it never answered 503 (no drain)")
    )
    node.stop()
    start_web(run.topo, "web-2")
    say("web-2 restarted")


def fault_kill_worker_mid_send(run: Run) -> None:
    workers = [p for name, p in run.topo.procs.items() if name.startswith("worker-") and p.alive()]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run.sink.stall.set()
        try:
            peer, message_id, release = run.sink.stalled.get(timeout=deadline - time.monotonic())
        except Empty:
            break
        owner = socket_owner(peer, [w.pid for w in workers])
        worker = next((w for w in workers if w.pid == owner), None)
        if worker is None:  # sent by another process (an inbound server's answer): let it through
            release.set()
            continue
        worker.kill_group()
        release.set()
        while not run.sink.stalled.empty():  # any other message held meanwhile goes on
            run.sink.stalled.get_nowait()[2].set()
        run.ledger.notes.append(f"{worker.name} SIGKILLed while it sent {message_id}")
        due_again(run, message_id)
        worker.start()
        say(f"{worker.name} restarted")
        return
    run.sink.stall.clear()
    run.ledger.notes.append("no worker sent an email within 2 minutes: none killed")


def due_again(run: Run, message_id: str) -> None:
    """The email whose send was cut is due all the same: it must arrive once, later."""
    note = _note_of(message_id)
    if note is None:
        return
    for user, game, key in run.db.rows(
        "SELECT user_id, game_id, key FROM notifications_notification WHERE id = %s", (note,)
    ):
        version = int(key.rpartition(":")[2]) if key.rpartition(":")[2].isdigit() else 0
        with run.ledger.lock:
            run.ledger.due[note] = Due(user, game or "", version, note)


def fault_redis_failover(run: Run) -> None:
    sentinels = [run.topo.ports[f"sentinel-{n}"] for n in (1, 2, 3)]
    old = sentinel_master(sentinels[0])
    redis_at(sentinels[0]).execute_command("SENTINEL", "FAILOVER", SENTINEL_MASTER)  # type: ignore[no-untyped-call]
    took = wait_until(
        lambda: all(sentinel_master(p) not in (None, old) for p in sentinels), "Sentinel's failover", 60
    )
    new = sentinel_master(sentinels[0])
    assert new is not None
    frozen = run.topo.redis_port_proc(new)
    run.ledger.notes.append(
        f"Redis failed over by SENTINEL FAILOVER in {took:.1f} s: master {old} → {new}; "
        f"{frozen.name} then frozen (SIGSTOP) for 10 s"
    )
    frozen.send(signal.SIGSTOP)
    time.sleep(10)
    frozen.send(signal.SIGCONT)
    time.sleep(5)
    now = sentinel_master(sentinels[0])
    run.ledger.notes.append(f"after the freeze the Sentinels name port {now} the master")


def fault_restart_pgbouncer(run: Run) -> None:
    bouncer = run.topo.procs["pgbouncer"]
    began = time.monotonic()
    bouncer.stop(signal.SIGTERM)  # immediate shutdown: every client connection dropped
    run.topo.start_pgbouncer()
    run.ledger.notes.append(
        f"PgBouncer restarted (SIGTERM, started again: {time.monotonic() - began:.1f} s down)"
    )


def fault_kill_inbound(run: Run) -> None:
    run.kill_inbound.set()
    try:
        what = run.inbound_killed.get(timeout=EMAIL_WAIT + 60)
    except Empty:
        run.kill_inbound.clear()
        run.ledger.notes.append("no reply was sent by email in time: no inbound server killed")
        return
    run.ledger.notes.append(what)
    for name in ("inbound-1", "inbound-2"):
        proc = run.topo.procs[name]
        if not proc.alive():
            start_manage(proc, "inbound SMTP on")
            say(f"{name} restarted")


def fault_postgres_failover(run: Run) -> None:
    topo = run.topo
    holders = direct_holders(run)
    run.ledger.notes.append(
        "direct connections to the primary before the failover: " + (", ".join(sorted(holders)) or "none")
    )
    run.replica_after = replica_reads(run)
    began = time.monotonic()
    topo.procs["pg-primary"].stop(signal.SIGINT)  # fast shutdown
    topo.promote_replica()
    new_port = topo.ports["pg-replica"]
    topo.write_pgbouncer_ini(new_port)
    topo.reload_pgbouncer()
    new_url = f"postgres://postgres@127.0.0.1:{new_port}/{DATABASE}"
    run.env["DATABASE_DIRECT_URL"] = new_url
    run.env["DATABASE_REPLICA_URL"] = new_url  # no replica is left: the promoted one serves all
    for proc in topo.procs.values():
        if proc.env is not None and "DATABASE_URL" in proc.env:
            proc.env.update(DATABASE_DIRECT_URL=new_url, DATABASE_REPLICA_URL=new_url)
    run.ledger.notes.append(
        f"PostgreSQL failed over: primary stopped (fast), replica promoted (pg_ctl promote), "
        f"pgbouncer.ini pointed at port {new_port} and RELOADed, DATABASE_DIRECT_URL and "
        f"DATABASE_REPLICA_URL set to the promoted server ({time.monotonic() - began:.1f} s)"
    )
    for name in sorted(holders):
        restart(run, name)
    unrestarted = sorted(
        n for n, p in topo.procs.items() if p.env is not None and n not in holders and p.alive()
    )
    run.ledger.notes.append(
        "restarted (they held direct connections): "
        + (", ".join(sorted(holders)) or "nothing")
        + "; left running (none of their connections went to the primary directly): "
        + ", ".join(unrestarted)
    )


def direct_holders(run: Run) -> set[str]:
    """Our processes with a connection straight to the primary (not through PgBouncer)."""
    port = run.topo.ports["pg-primary"]
    with psycopg.connect(f"postgres://postgres@127.0.0.1:{port}/{DATABASE}", autocommit=True) as conn:
        client_ports = [
            r[0]
            for r in conn.execute(
                "SELECT client_port FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
                "AND client_port IS NOT NULL",
                (DATABASE,),
            ).fetchall()
        ]
    site = {n: p for n, p in run.topo.procs.items() if p.env is not None and p.alive()}
    holders = set()
    for client_port in client_ports:
        owner = socket_owner(client_port, [p.pid for p in site.values()])
        holders |= {n for n, p in site.items() if p.pid == owner}
    return holders


def restart(run: Run, name: str) -> None:
    proc = run.topo.procs[name]
    proc.stop(signal.SIGTERM, timeout=60)  # a web node drains first
    if name.startswith("web-"):
        start_web(run.topo, name)
    elif name.startswith(("relay-", "inbound-")):
        start_manage(proc, "listening" if name.startswith("relay-") else "inbound SMTP on")
    else:
        proc.start()
    say(f"{name} restarted")


FAULTS: list[tuple[str, Callable[[Run], None]]] = [
    ("SIGKILL web-1", fault_kill_web),
    ("SIGTERM web-2 (drain)", fault_term_web),
    ("SIGKILL a worker mid-send", fault_kill_worker_mid_send),
    ("Redis failover, new master frozen 10 s", fault_redis_failover),
    ("restart PgBouncer", fault_restart_pgbouncer),
    ("SIGKILL an inbound server mid-message", fault_kill_inbound),
    ("PostgreSQL failover to the replica", fault_postgres_failover),
]


def inject_faults(run: Run, began: float) -> None:
    gap = run.args.duration / (len(FAULTS) + 1)
    for n, (name, fault) in enumerate(FAULTS, 1):
        while time.monotonic() < began + gap * n:
            time.sleep(0.2)
        say(f"fault {n}: {name}")
        try:
            fault(run)
        except Exception as exc:
            run.ledger.notes.append(f"fault {name} failed: {type(exc).__name__}: {exc}")
        say(f"fault {n} done: {run.ledger.notes[-1]}")


# --- Starting the site's processes ----------------------------------------------------------------
def start_manage(proc: Proc, ready: str) -> None:
    size = proc.log.stat().st_size if proc.log.exists() else 0
    proc.start()
    wait_until(lambda: proc.log_holds(ready, size), f"{proc.name} to say {ready!r}", 90, 0.2)


def start_web(topo: Topology, name: str) -> None:
    proc = topo.procs[name]
    proc.start()
    port = topo.ports[name]
    probe = Http(0)  # not counted: the node is not in the load balancer's hands yet
    wait_until(
        lambda: probe.call("GET", "/api/health/", port=port).status == 200, f"{name} to answer", 90, 0.2
    )


def site_env_for(
    topo: Topology, urls: dict[str, str], sink: Sink, sentinels: list[int], args: argparse.Namespace
) -> dict[str, str]:
    """docs/deploy.md's environment, the same for every process of the site."""
    env = site_env(
        urls["pgbouncer"],
        f"redis://127.0.0.1:{topo.ports['redis-1']}/0",
        PG_PREPARED_STATEMENTS="0",
        DATABASE_DIRECT_URL=urls["primary"],
        DATABASE_REPLICA_URL=urls["replica"],
        REDIS_SENTINELS=",".join(f"127.0.0.1:{p}" for p in sentinels),
        REDIS_SENTINEL_MASTER=SENTINEL_MASTER,
        OUTBOX_RELAY="1",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(sink.port),
        INBOUND_EMAIL_DOMAIN=DOMAIN,
        INBOUND_REPLIES_PER_HOUR="100000",
        NUM_PROXIES="1",
        ALLOWED_HOSTS="127.0.0.1",
        WEB_CONCURRENCY=str(args.web_workers),
        BOT_MOVE_DELAY_SECONDS="0.5",
        REVIEW_ITERATIONS=str(args.review_iterations),
        DRAIN_SECONDS="5",
        STATIC_ROOT=str(topo.path("static")),
    )
    return env


def launch(topo: Topology, args: argparse.Namespace, sink: Sink) -> tuple[dict[str, str], Http, str]:
    say(f"temp dir {topo.root}")
    urls = {"primary": topo.start_primary()}
    say(f"PostgreSQL primary on {topo.ports['pg-primary']}")
    urls["replica"] = topo.start_replica(args.replica_delay)
    say(f"replica on {topo.ports['pg-replica']} (recovery_min_apply_delay {args.replica_delay} ms)")
    urls["pgbouncer"] = topo.start_pgbouncer()
    say(f"PgBouncer (transaction mode) on {topo.ports['pgbouncer']}")
    topo.start_redis()
    sentinels = topo.start_sentinels()
    say(f"Redis {topo.ports['redis-1']} (master), {topo.ports['redis-2']} (replica); Sentinels {sentinels}")
    env = site_env_for(topo, urls, sink, sentinels, args)
    say("manage.py migrate, collectstatic (once, before the web nodes)")
    # migrate's advisory lock belongs to a session, which a transaction pooler does not keep:
    # it goes straight to the primary (docs/deploy.md).
    once = {**env, "DATABASE_URL": urls["primary"]}
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        proc = topo.manage(command[0], once, *command).start()
        assert proc.popen is not None
        if proc.popen.wait(timeout=600) != 0:
            raise RuntimeError(f"manage.py {command[0]} failed: see {proc.log}")
    web_ports = [free_port() for _ in range(3)]
    http = Http(0)
    for n, port in enumerate(web_ports, 1):
        topo.gunicorn(f"web-{n}", dict(env), port)
        start_web(topo, f"web-{n}")
    check = READY if Http(0).call("GET", READY, port=web_ports[0]).status != 404 else "/api/health/"
    if check != READY:
        say(f"{READY} answers 404 here: HAProxy checks /api/health/ (liveness) instead")
    http.port = topo.start_haproxy(web_ports, check)
    say(f"web nodes {web_ports} behind HAProxy on {http.port}")
    for n in (1, 2):
        topo.celery(
            f"worker-{n}",
            dict(env),
            "worker",
            "-Q",
            "celery",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"default{n}@%h",
        ).start()
    topo.celery(
        "worker-reviews",
        dict(env),
        "worker",
        "-Q",
        "reviews",
        "--pool=solo",
        "--loglevel=WARNING",
        "--without-gossip",
        "--without-mingle",
        "-n",
        "reviews@%h",
    ).start()
    for n in (1, 2):
        topo.celery(
            f"beat-{n}",
            dict(env),
            "beat",
            "--loglevel=WARNING",
            f"--schedule={topo.path(f'beat-{n}-schedule')}",
        ).start()
    for n in (1, 2):
        start_manage(topo.manage(f"relay-{n}", dict(env), "relay_outbox"), "listening")
    for n in (1, 2):
        topo.ports[f"inbound-{n}"] = port = free_port()
        start_manage(
            topo.manage(
                f"inbound-{n}", dict(env), "inbound_smtp", "--host", "127.0.0.1", "--port", str(port)
            ),
            "inbound SMTP on",
        )
    say("3 workers (2 default, 1 reviews), 2 beats, 2 relays, 2 inbound servers")
    return env, http, check


# --- Players -------------------------------------------------------------------------------------
def make_players(run: Run, count: int, prefix: str) -> list[Seat]:
    """Players with confirmed addresses (made in this process through the accounts service,
    as an import would), each signed in through the load balancer."""
    from accounts import services as accounts

    seats = []
    for i in range(count):
        name = f"{prefix}{i}x{run.run_id}"
        email = f"{name}@players.invalid"
        user = accounts.user_create(username=name, password=PASSWORD, email=email, email_confirmed=True)
        seats.append(Seat(name, user.pk, email))
    for seat in seats:
        answer = run.ask("POST", "/api/tokens/", None, {"username": seat.name, "password": PASSWORD})
        assert answer.status == 201, answer
        seat.token = answer.body["token"]
    return seats


def start_vacations(run: Run, pairs: int) -> list[str]:
    """Players each in a few idle games with a clock, away from now; their vacations are then
    made to end a minute from now, so that both beats' first clock sweep finds them over."""
    from games import challenges, vacations
    from games.models import Game, Vacation

    seats = make_players(run, 2 * pairs, "v")
    games = []
    for i in range(pairs):
        away, partner = seats[2 * i], seats[2 * i + 1]
        from django.contrib.auth.models import User

        users = User.objects.in_bulk([away.user_id, partner.user_id])
        for _ in range(3):
            game = challenges.game_create(creator=users[away.user_id], opponent=partner.name, days_per_turn=3)
            challenges.game_accept(game=Game.objects.get(pk=game.pk), user=users[partner.user_id])
            games.append(game.pk)
        vacations.vacation_start(user=users[away.user_id], days=2)
    Vacation.objects.filter(user_id__in=[s.user_id for s in seats]).update(
        ends_at=_db_now(run) + _seconds(30)
    )
    with run.ledger.lock:
        run.ledger.games.update(games)
    return games


def _db_now(run: Run) -> Any:
    return run.db.rows("SELECT now()")[0][0]


def _seconds(n: float) -> Any:
    from datetime import timedelta

    return timedelta(seconds=n)


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ["DATABASE_URL"] = env["DATABASE_DIRECT_URL"]  # this process: straight to the primary
    import django

    django.setup()


# --- The accounting -----------------------------------------------------------------------------
def replica_reads(run: Run) -> tuple[int, int]:
    port = run.topo.ports["pg-replica"]
    with psycopg.connect(f"postgres://postgres@127.0.0.1:{port}/{DATABASE}", autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit, tup_returned FROM pg_stat_database WHERE datname = %s", (DATABASE,)
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


@dataclass
class Verdict:
    failures: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def line(self, text: str, *bad: tuple[str, int]) -> None:
        self.lines.append(text)
        self.failures += [f"{what}: {n}" for what, n in bad if n]


def count_plays(run: Run, verdict: Verdict) -> None:
    ledger = run.ledger
    games = sorted(ledger.games)
    events: dict[str, list[tuple[int, str, dict[str, Any]]]] = {}
    for game, seq, kind, payload in run.db.rows(
        "SELECT game_id, seq, kind, payload FROM games_gameevent WHERE game_id = ANY(%s) "
        "ORDER BY game_id, seq",
        (games,),
    ):
        events.setdefault(game, []).append(
            (seq, kind, payload if isinstance(payload, dict) else json.loads(payload))
        )
    versions = dict(run.db.rows("SELECT id, version FROM games_game WHERE id = ANY(%s)", (games,)))
    gaps = sum(
        1 for g in games if [s for s, _, _ in events.get(g, [])] != list(range(1, versions.get(g, 0) + 1))
    )
    acked = [a for a in ledger.attempts.values() if a.acked is not None]
    lost = [a for a in acked if not _played(events.get(a.game, []), a)]
    # A play in the log of a human seat that no attempt of ours explains was made twice.
    human_seats = {(a.game, a.seat) for a in ledger.attempts.values()}
    doubled = [
        (game, seq)
        for game, rows in events.items()
        for seq, kind, payload in rows
        if kind in ("cards_played", "turn_passed")
        and (game, payload.get("seat")) in human_seats
        and (game, seq - 1) not in ledger.attempts
    ]
    mail_plays = sum(
        1 for a in ledger.attempts.values() if a.via == "mail" and _played(events.get(a.game, []), a)
    )
    unacked = sum(1 for a in ledger.attempts.values() if a.via == "api" and a.acked is None)
    verdict.line(
        f"plays acknowledged {len(acked)} (API), by email {mail_plays}; "
        f"lost {len(lost)}, doubled {len(doubled)}; "
        f"tried but never acknowledged {unacked}; games {len(games)}, logs with a gap {gaps}",
        ("plays lost", len(lost)),
        ("plays doubled", len(doubled)),
        ("logs with a gap", gaps),
    )
    for a in lost[:5]:
        verdict.lines.append(f"  lost: game {a.game} play at version {a.version} (seat {a.seat})")
    for game, seq in doubled[:5]:
        verdict.lines.append(f"  doubled: game {game} event {seq} is a play no client made")
    run.events = events


def _played(rows: list[tuple[int, str, dict[str, Any]]], attempt: Attempt) -> bool:
    for seq, kind, payload in rows:
        if seq == attempt.version + 1:
            return (
                kind in ("cards_played", "turn_passed")
                and payload.get("seat") == attempt.seat
                and (attempt.cards is None or sorted(payload.get("cards", [])) == sorted(attempt.cards))
            )
    return False


def open_turns_due(run: Run) -> None:
    """Every turn of a person still waiting at the end is due an email too."""
    rows = run.db.rows(
        "SELECT n.id, n.user_id, g.id, g.version FROM games_game g JOIN notifications_notification n "
        "ON n.game_id = g.id AND n.kind = 'your_turn' AND n.key = g.id || ':' || g.version "
        "WHERE g.id = ANY(%s) AND g.status = 'active'",
        (sorted(run.ledger.games),),
    )
    with run.ledger.lock:
        for note, user, game, version in rows:
            run.ledger.due.setdefault(note, Due(user, game, version, note))


def drain_emails(run: Run, limit: float) -> None:
    began = time.monotonic()
    while time.monotonic() - began < limit:
        arrived = {_note_of(m.message_id) for m in run.sink.find(lambda m: True)}
        waiting = [n for n in run.ledger.due if n not in arrived]
        if not waiting:
            return
        say(f"waiting for {len(waiting)} due emails")
        time.sleep(10)


def _note_of(message_id: str) -> int | None:
    if message_id.startswith("<notification-"):
        return int(message_id[len("<notification-") : message_id.index("@")])
    return None


def count_emails(run: Run, verdict: Verdict) -> None:
    mails = run.sink.find(lambda m: True)
    by_note = Counter(n for m in mails if (n := _note_of(m.message_id)) is not None)
    due = run.ledger.due
    missing = [n for n in due if by_note[n] == 0]
    doubled = [n for n, c in by_note.items() if c > 1]
    notes = {
        r[0]: r[1:]
        for r in run.db.rows(
            "SELECT id, kind, key, game_id, extract(epoch FROM created_at) FROM notifications_notification "
            "WHERE id = ANY(%s)",
            (list(by_note),),
        )
    }
    first: dict[int, float] = {}
    for mail in mails:
        note = _note_of(mail.message_id)
        if note is not None:
            first.setdefault(note, mail.at)
    delays = [first[n] - float(notes[n][3]) for n in due if n in first and n in notes]
    played_at = _play_times(run)
    stale, raced, turn_mails = 0, 0, 0
    for mail in mails:
        note = _note_of(mail.message_id)
        if note is None or note not in notes or notes[note][0] not in ("your_turn", "reminder"):
            continue
        turn_mails += 1
        game, version = notes[note][2], int(notes[note][1].rpartition(":")[2])
        ended = played_at.get((game, version))
        if ended is not None and mail.at > ended:
            if mail.at > ended + STALE_GRACE:
                stale += 1
            else:
                raced += 1
    verdict.line(
        f"emails due {len(due)}, missing {len(missing)}, doubled {len(doubled)}, stale {stale} "
        f"(of {turn_mails} turn emails sent; {raced} more went out within {STALE_GRACE:.0f} s after the "
        f"turn's play, the check-then-send race); {len(mails)} emails in all, "
        f"{len(run.sink.discarded)} dropped mid-send",
        ("emails missing", len(missing)),
        ("emails doubled", len(doubled)),
        ("emails stale", stale),
    )
    verdict.lines.append(f"  due emails, from the row's commit to the sink: {_in_seconds(delays)}")
    for n in missing[:5]:
        d = due[n]
        verdict.lines.append(f"  missing: notification {n}, game {d.game} version {d.version}")


def _in_seconds(samples: list[float]) -> str:
    if not samples:
        return "none"
    ordered = sorted(samples)
    p50, p95 = (ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.5, 0.95))
    return f"p50 {p50:.2f} s, p95 {p95:.2f} s, max {ordered[-1]:.2f} s ({len(ordered)})"


def _play_times(run: Run) -> dict[tuple[str, int], float]:
    """When each turn (game, version) ended: the first play recorded after that version."""
    ended: dict[tuple[str, int], float] = {}
    rows = run.db.rows(
        "SELECT game_id, seq, extract(epoch FROM created_at) FROM games_gameevent WHERE game_id = ANY(%s) "
        "AND kind IN ('cards_played', 'turn_passed', 'game_ended') ORDER BY game_id, seq",
        (sorted(run.ledger.games),),
    )
    previous: dict[str, int] = {}
    for game, seq, at in rows:
        for version in range(previous.get(game, 0), seq):
            ended.setdefault((game, version), float(at))
        previous[game] = seq
    return ended


def count_replies(run: Run, verdict: Verdict) -> None:
    events = run.events
    replies = run.ledger.replies
    played = [
        r
        for r in replies
        if _played(events.get(r.game, []), Attempt(r.game, r.version, r.seat, None, "mail"))
    ]
    outcomes = dict(
        run.db.rows(
            "SELECT message_id, outcome FROM notifications_inboundmail WHERE message_id = ANY(%s)",
            ([r.message_id for r in replies],),
        )
    )
    refused = [r for r in replies if r not in played and outcomes.get(r.message_id, "").startswith("refused")]
    lost = [r for r in replies if r.gave_up or (r not in played and r not in refused)]
    verdict.line(
        f"replies by email {len(replies)}: played {len(played)}, "
        f"refused and answered {len(refused)}, lost {len(lost)}",
        ("replies lost", len(lost)),
    )
    for r in lost[:5]:
        verdict.lines.append(
            f"  lost: {r.message_id} (inbound outcome {outcomes.get(r.message_id, 'none')!r})"
        )


def count_vacations(run: Run, verdict: Verdict, games: list[str]) -> None:
    rows = run.db.rows(
        "SELECT g.id, count(e.seq) FROM games_game g LEFT JOIN games_gameevent e ON e.game_id = g.id "
        "AND e.kind = 'vacation_ended' WHERE g.id = ANY(%s) GROUP BY g.id",
        (games,),
    )
    ends = Counter(int(n) for _, n in rows)
    twice = sum(c for n, c in ends.items() if n > 1)
    verdict.line(
        f"vacations ending during the run: {len(games)} games told, ended once in {ends[1]}, "
        f"more than once in {twice}, not at all in {ends[0]}",
        ("periodic effects applied twice (vacation ended twice)", twice),
        ("vacation ends never recorded", ends[0]),
    )


def report(run: Run, verdict: Verdict, reads: tuple[int, int], before: tuple[int, int]) -> None:
    ledger = run.ledger
    verdict.line(
        f"read-your-writes: {ledger.ryw_checks} checks (the game after each play; a finished game's "
        f"events and record), {len(ledger.ryw_violations)} missed the client's own play",
        ("read-your-writes violations", len(ledger.ryw_violations)),
    )
    verdict.lines += [f"  {v}" for v in ledger.ryw_violations[:5]]
    # Our own two measuring queries are one transaction each.
    verdict.line(
        f"the replica served {reads[0] - before[0] - 1} transactions, "
        f"{reads[1] - before[1]} rows returned (pg_stat_database, until the failover)"
    )
    kinds = run.http.kinds
    plain = {k: v for k, v in kinds.items() if k == "2xx" or k.startswith("4") or k.endswith("(documented)")}
    other = {k: v for k, v in kinds.items() if k not in plain}
    verdict.line("HTTP answers: " + ", ".join(f"{k} {v}" for k, v in sorted(plain.items())))
    for kind in sorted(k for k in plain if k.startswith("4")):
        where = ", ".join(f"{route} {c}" for route, c in run.http.where[kind].most_common(4))
        verdict.lines.append(f"  {kind}: {where}")
    verdict.lines.append("other answers, by kind: " + ("none" if not other else ""))
    for kind, n in sorted(other.items(), key=lambda kv: -kv[1]):
        where = ", ".join(f"{route} {c}" for route, c in run.http.where[kind].most_common(4))
        verdict.lines.append(f"  {n} × {kind} ({where})")


# --- Main -----------------------------------------------------------------------------------------
def play(run: Run, args: argparse.Namespace) -> list[str]:
    say("players and games")
    humans = make_players(run, 2 * args.games, "h")
    bots = make_players(run, args.bot_games, "b")
    mailers = make_players(run, 2 * args.mail_games, "m")
    vacation_games = start_vacations(run, args.vacations)
    tables = [
        Table("human", {"a": humans[2 * i], "b": humans[2 * i + 1]}, random.Random(i))
        for i in range(args.games)
    ]
    tables += [Table("bot", {"a": seat}, random.Random(100 + i)) for i, seat in enumerate(bots)]
    tables += [
        Table("mail", {"a": mailers[2 * i], "b": mailers[2 * i + 1]}, random.Random(200 + i))
        for i in range(args.mail_games)
    ]
    run.replica_before = replica_reads(run)
    threads = [threading.Thread(target=run.play_table, args=(t,), daemon=True) for t in tables]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    say(
        f"playing: {args.games} human games, {args.bot_games} bot games, {args.mail_games} by email, "
        f"for {args.duration:.0f} s"
    )
    faults = threading.Thread(target=inject_faults, args=(run, began), daemon=True)
    if not args.no_faults:
        faults.start()
    while time.monotonic() - began < args.duration:
        time.sleep(1)
    if faults.is_alive():
        say("waiting for the faults to finish")
        faults.join()
    say("stopping the clients")
    run.stop.set()
    deadline = time.monotonic() + REPLY_RETRIES + 60  # a turn in hand ends within its retries
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    return vacation_games


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6, help="human-vs-human games played at once")
    parser.add_argument("--bot-games", type=int, default=2)
    parser.add_argument("--mail-games", type=int, default=1)
    parser.add_argument("--vacations", type=int, default=2, help="players whose vacation ends during the run")
    parser.add_argument(
        "--duration", type=float, default=420, help="seconds of play (the faults spread over it)"
    )
    parser.add_argument(
        "--drain", type=float, default=300, help="at most this long for due emails at the end"
    )
    parser.add_argument("--replica-delay", type=int, default=500, help="recovery_min_apply_delay (ms)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn workers per web node")
    parser.add_argument("--review-iterations", type=int, default=20)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--keep", action="store_true", help="leave the temp dir (logs, data) behind")
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, _interrupted)
    topo = Topology(make_root())
    sink = Sink()
    verdict = Verdict()
    try:
        env, http_, check = launch(topo, args, sink)
        run = Run(args, topo, http_, sink, Db(env["DATABASE_URL"]), env, hex(int(time.time()))[2:])
        setup_django(env)
        vacation_games = play(run, args)
        before = run.replica_before
        reads = run.replica_after or replica_reads(run)
        open_turns_due(run)
        drain_emails(run, args.drain)
        say("counting")
        count_plays(run, verdict)
        count_emails(run, verdict)
        count_replies(run, verdict)
        count_vacations(run, verdict, vacation_games)
        report(run, verdict, reads, before)
        print("\n== what was done ==")
        print(f"health check of HAProxy: GET {check}")
        for note in run.ledger.notes:
            print(f"- {note}")
        print("\n== counts ==")
        print("\n".join(verdict.lines))
        print(
            "\nFAILED: " + "; ".join(verdict.failures)
            if verdict.failures
            else "\nOK: nothing lost, doubled, missing or stale"
        )
        return 1 if verdict.failures else 0
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    finally:
        say("stopping every process")
        with _quiet():
            topo.stop_all()
        sink.server.shutdown()
        if args.keep:
            print(f"kept {topo.root}")
        else:
            shutil.rmtree(topo.root, ignore_errors=True)


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM stops everything as Ctrl-C does


@contextmanager
def _quiet() -> Iterator[None]:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not leave processes
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    sys.exit(main())
