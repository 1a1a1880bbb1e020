"""Execution backends: run independent tasks serially, on local processes or on a Dask cluster.

One small interface shared by the ground truth, selection studies and evolution::

    with get_backend("multiprocess", workers=2) as backend:
        for index, result in backend.map_unordered(fn, items):
            ...  # ``result == fn(items[index])``, yielded as soon as that task finishes

Results arrive in completion order with the index of their item, so a caller can store each finished
task at once (checkpoints). Reproducibility is the caller's job and is easy: a task must carry all of
its inputs (including its seed), so the same task gives the same result on any backend, worker count
or order of completion.

- ``serial``: in this process, in order. No start-up cost; the reference for the others.
- ``multiprocess`` (default): ``workers`` local processes (all usable cores by default) of the
  ``multiprocess`` package, which pickles with dill (closures and lambdas work), each sent one task at a
  time over its own pipe: tasks here are long (seconds), so balance matters more than messaging. On
  Linux the workers ask the kernel to kill them when the parent dies (``PR_SET_PDEATHSIG``), so a
  ``kill -9`` of the command leaves no orphaned workers behind.
- ``dask``: ``dask.distributed`` on the cluster at ``scheduler`` (``tcp://HOST:PORT``), or a local
  cluster of ``workers`` single-threaded processes when no address is given, with Dask's monitoring
  slowed down (``LOCAL_DASK_CONFIG``) so that it does not take CPU from the tasks. Dask is the optional
  extra ``pokerduel[dask]``; without it the backend raises an ``ImportError`` saying how to install it.

A task that raises makes ``map_unordered`` raise that error, and a worker process that dies in a task
makes it raise a ``RuntimeError``; results yielded before stay valid.

**Interrupts.** Inside ``interruptible()`` (every ``pokerduel`` command runs in one) SIGINT and SIGTERM
raise ``Interrupted`` in the main thread and make every ``map_unordered`` running in another thread raise
it too within ``POLL`` seconds; a backend left by an exception terminates its workers instead of waiting
for their tasks. Worker processes ignore SIGINT (a Ctrl-C reaches the whole process group) and end
quietly on SIGTERM; the parent ends them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Iterable, Iterator

BACKENDS = ("serial", "multiprocess", "dask")
DEFAULT_BACKEND = "multiprocess"
DASK_HINT = 'the dask backend needs Dask distributed: pip install "pokerduel[dask]"'

#: Dask settings for the local cluster, which shares its cores with the tasks. Dask's defaults (a 10 ms
#: stack profiler, 20 ms event-loop ticks, a 100 ms memory monitor, a 500 ms system monitor and work
#: stealing) cost 17 % of a core on two idle worker processes here and slowed a ground truth by 20-30 %;
#: with these, 2 %. A cluster the user starts (``scheduler=``) keeps its own configuration.
LOCAL_DASK_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


#: seconds between two looks at the interrupt flag while a ``map_unordered`` waits for a result
POLL = 0.1
#: seconds a closing multiprocess backend waits for each idle worker to end before it kills it
CLOSE_WAIT = 5.0
_INTERRUPT = {"event": threading.Event(), "signum": signal.SIGINT, "pid": None}


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM (``signum``) stopped the work (a ``KeyboardInterrupt``, so that ``finally`` blocks and
    context managers clean up as after Ctrl-C)."""

    def __init__(self, signum: int):
        self.signum = int(signum)
        super().__init__(signal.Signals(self.signum).name)


def _on_signal(signum, frame):
    if os.getpid() != _INTERRUPT["pid"]:  # a worker forked inside the block: its parent ends it
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        return
    _INTERRUPT["signum"] = signum
    _INTERRUPT["event"].set()
    raise Interrupted(signum)


def interrupted() -> bool:
    """Whether SIGINT or SIGTERM arrived inside the current ``interruptible()`` block."""
    return _INTERRUPT["event"].is_set()


def check_interrupted() -> None:
    """Raise ``Interrupted`` if SIGINT or SIGTERM arrived inside the current ``interruptible()`` block (for
    threads other than the main one, which the signal itself interrupts)."""
    if _INTERRUPT["event"].is_set():
        raise Interrupted(_INTERRUPT["signum"])


@contextlib.contextmanager
def interruptible():
    """Within the block, SIGINT and SIGTERM raise ``Interrupted`` in the main thread and stop every
    ``map_unordered`` waiting in other threads (``check_interrupted``); processes forked inside ignore
    SIGINT and end on SIGTERM. Called outside the main thread (where signals cannot be handled) it only
    runs the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    saved = dict(_INTERRUPT)
    _INTERRUPT.update(event=threading.Event(), signum=signal.SIGINT, pid=os.getpid())
    for s in old:
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        _INTERRUPT.update(saved)


@contextlib.contextmanager
def _sigint_ignored_by_children():
    """Processes started in the block (a local Dask cluster's, spawned) inherit an ignored SIGINT: a Ctrl-C
    reaches the whole process group, and the parent, not the signal, ends them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def default_workers() -> int:
    """The number of CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _call_indexed(fn, indexed):
    index, item = indexed
    return index, fn(item)


def _init_worker(parent_pid: int) -> None:
    """A worker process's set-up: ignore SIGINT and end on SIGTERM (the parent ends its workers), and on
    Linux get SIGKILL when the parent process exits (best effort elsewhere)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


class Backend:
    """Runs ``fn`` over items; subclasses implement ``map_unordered``. Use as a context manager."""

    name = "backend"

    def __init__(self, workers: int = 1):
        self.workers = workers

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def close(self, terminate: bool = False) -> None:
        """Release processes or cluster connections (idempotent); ``terminate``: stop running tasks at once."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        self.close(terminate=exc_type is not None)  # after an error or an interrupt, do not wait for tasks
        return False


class SerialBackend(Backend):
    """Every task in this process, in order."""

    name = "serial"

    def __init__(self):
        super().__init__(1)

    def map_unordered(self, fn, items):
        for index, item in enumerate(items):
            check_interrupted()
            yield index, fn(item)


def _serve(conn, parent_pid: int) -> None:
    """Worker process: run each ``(fn, index, item)`` that arrives on ``conn`` and send back
    ``(index, True, fn(item))``, or ``(index, False, error)`` if it raised; end on ``None`` or a closed pipe."""
    from multiprocess.reduction import ForkingPickler

    _init_worker(parent_pid)
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            task = ForkingPickler.loads(data)
        except Exception as e:  # noqa: BLE001 (sent to the caller, which raises it)
            conn.send((None, False, e))
            continue
        if task is None:
            return
        fn, index, item = task
        try:
            reply = (index, True, fn(item))
        except Exception as e:  # noqa: BLE001
            with contextlib.suppress(Exception):
                e.add_note("in the worker process:\n" + traceback.format_exc())
            reply = (index, False, e)
        try:
            conn.send(reply)  # pickled whole before anything is written
        except Exception as e:  # noqa: BLE001
            what = "result" if reply[1] else "error"
            conn.send((index, False, RuntimeError(f"task {index}'s {what} could not be sent back: {e!r}")))


_CLOSED = "the multiprocess backend was closed while tasks were running"


class _Worker:
    """One worker process and the parent's end of its pipe."""

    __slots__ = ("conn", "process")

    def __init__(self, process, conn):
        self.process, self.conn = process, conn


class MultiprocessBackend(Backend):
    """Local worker processes (``multiprocess``, dill pickling), started on first use, each fed over a pipe
    of its own.

    No queue or lock is shared with the workers, so ending them never waits on one: ``close(terminate=True)``
    kills them at once (``multiprocessing.Pool.terminate`` can hang when a worker dies while it holds the
    task queue's lock), and a worker that dies in a task makes ``map_unordered`` raise instead of waiting
    for ever. Several threads may run ``map_unordered`` at once; each hands its next task to a worker that
    is free and waits only on the workers running its own tasks."""

    name = "multiprocess"

    def __init__(self, workers: int | None = None, context: str | None = None):
        super().__init__(default_workers() if workers is None else workers)
        self._context = context
        self._procs: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._freed = threading.Condition()
        self._keep: threading.Event | None = None

    def _start(self) -> None:
        """Start the workers from a thread that lives until ``close``: Linux sends a worker its parent-death
        signal when the *thread* that started it ends, and ``map_unordered`` may first run in a short-lived one."""
        with self._freed:
            if self._procs:
                return
            import multiprocess

            ctx = multiprocess.get_context(self._context)
            started, failed, self._keep = threading.Event(), [], threading.Event()

            def keeper(keep: threading.Event) -> None:
                try:
                    for _ in range(self.workers):
                        conn, child = ctx.Pipe()
                        p = ctx.Process(target=_serve, args=(child, os.getpid()), daemon=True)
                        p.start()
                        child.close()
                        self._procs.append(_Worker(p, conn))
                except BaseException as e:  # noqa: BLE001 (raised in the caller)
                    failed.append(e)
                finally:
                    started.set()
                keep.wait()

            threading.Thread(target=keeper, args=(self._keep,), name="pokerduel-workers", daemon=True).start()
            started.wait()
            self._idle = list(self._procs)
        if failed:
            self.close(terminate=True)
            raise failed[0]

    def _claim(self, todo, mine: dict, fn) -> None:
        """Hand the next tasks of ``todo`` to free workers (``mine``: conn -> worker running one of them)."""
        with self._freed:
            if not self._procs:
                raise RuntimeError(_CLOSED)
            while todo and self._idle:
                self._send(self._idle.pop(0), fn, todo, mine)

    @staticmethod
    def _send(w: _Worker, fn, todo, mine: dict) -> None:
        index, item = todo.popleft()
        w.conn.send((fn, index, item))
        mine[w.conn] = w

    def _release(self, w: _Worker) -> None:
        with self._freed:
            if w in self._procs:
                self._idle.append(w)
                self._freed.notify_all()

    def map_unordered(self, fn, items):
        from collections import deque

        from multiprocess.connection import wait

        todo = deque(enumerate(items))
        if not todo:
            return
        self._start()
        mine: dict = {}
        try:
            while todo or mine:
                self._claim(todo, mine, fn)
                if not mine:  # every worker runs another thread's tasks
                    with self._freed:
                        self._freed.wait(POLL)
                    check_interrupted()
                    continue
                ended = {w.process.sentinel: w for w in mine.values()}
                try:
                    ready = wait([*mine, *ended], timeout=POLL)
                except (OSError, ValueError):  # the pipes were closed by another thread
                    check_interrupted()
                    raise RuntimeError(_CLOSED) from None
                check_interrupted()
                for obj in ready:
                    w = mine.get(obj) or ended[obj]
                    if w.conn not in mine:  # its result and its end were both ready, and it was read
                        continue
                    try:
                        reply = w.conn.recv() if w.conn.poll() else None
                    except (EOFError, OSError):
                        reply = None
                    if reply is None:
                        check_interrupted()
                        w.process.join(CLOSE_WAIT)
                        raise RuntimeError(f"a worker process ended (exit code {w.process.exitcode}) while it "
                                           "ran a task")
                    index, ok, value = reply
                    del mine[w.conn]
                    if not ok:
                        raise value
                    if todo:
                        self._send(w, fn, todo, mine)
                    else:
                        self._release(w)
                    yield index, value
        except BaseException:
            self.close(terminate=True)
            raise

    def close(self, terminate: bool = False) -> None:
        with self._freed:
            procs, self._procs, self._idle = self._procs, [], []
            keep, self._keep = self._keep, None
            self._freed.notify_all()
        if not terminate:
            for w in procs:
                with contextlib.suppress(OSError, ValueError):
                    w.conn.send(None)
            for w in procs:
                w.process.join(CLOSE_WAIT)
        for w in procs:
            if w.process.exitcode is None:
                w.process.kill()
            w.process.join()
            w.conn.close()
        if keep is not None:
            keep.set()  # the workers have ended: their starting thread may end too


class DaskBackend(Backend):
    """``dask.distributed``: the scheduler at ``scheduler``, or a local cluster of ``workers`` processes.

    ``threads=True`` makes the local cluster one worker process with ``workers`` threads (tasks must
    release the GIL, as the match kernel does). Worker processes are the default: on a ground truth they
    measured +4 % over multiprocess, threads +17 %.
    """

    name = "dask"

    def __init__(self, workers: int | None = None, scheduler: str | None = None, threads: bool = False):
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ImportError(DASK_HINT) from None
        self.scheduler = scheduler
        self._cluster = None
        if scheduler is None:
            n = default_workers() if workers is None else workers
            with dask.config.set(LOCAL_DASK_CONFIG), _sigint_ignored_by_children():
                self._cluster = LocalCluster(n_workers=1 if threads else n, threads_per_worker=n if threads else 1,
                                             processes=not threads, dashboard_address=None)
                self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as err:
                raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler} ({err})") from None
            except (ValueError, TypeError) as err:
                raise ValueError(f"bad Dask scheduler address {scheduler!r} ({err}); give tcp://HOST:PORT") from None
            n = workers if workers is not None else max(1, sum(
                w.get("nthreads", 1) for w in self._client.scheduler_info().get("workers", {}).values()))
        super().__init__(n)

    def describe(self) -> str:
        where = self.scheduler or "local cluster"
        return f"dask ({where}, {self.workers} worker{'s' if self.workers != 1 else ''})"

    def map_unordered(self, fn, items):
        from dask.distributed import as_completed

        futures = [self._client.submit(_call_indexed, fn, (index, item), pure=False)
                   for index, item in enumerate(items)]
        try:
            done = as_completed(futures)
            while not done.is_empty():
                batch = done.next_batch(block=False)
                if not batch:
                    check_interrupted()
                    time.sleep(POLL / 5)
                for future in batch:
                    yield future.result()
        except BaseException as err:
            if self._cluster is None or not isinstance(err, KeyboardInterrupt):  # an interrupt ends our own cluster
                for future in futures:
                    future.cancel()
            raise

    def close(self, terminate: bool = False) -> None:
        if terminate and self._cluster is not None:
            # a local cluster's close waits for the running tasks: end its worker processes first
            for nanny in list(self._cluster.workers.values()):
                with contextlib.suppress(AttributeError, OSError, TypeError):
                    os.kill(nanny.process.process.pid, signal.SIGKILL)
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def get_backend(name: str = DEFAULT_BACKEND, *, workers: int | None = None, scheduler: str | None = None,
                threads: bool = False) -> Backend:
    """The backend called ``name``; ``ValueError`` for bad options, ``ImportError`` if Dask is missing.
    ``threads`` applies to a local Dask cluster (see ``DaskBackend``)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if scheduler is not None and name != "dask":
        raise ValueError(f"a scheduler address only applies to the dask backend, not {name!r}")
    if name == "serial":
        if workers not in (None, 1):
            raise ValueError(f"the serial backend runs one worker, got workers={workers}")
        return SerialBackend()
    if name == "multiprocess":
        return MultiprocessBackend(workers)
    return DaskBackend(workers, scheduler, threads)
