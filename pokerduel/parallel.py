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
- ``multiprocess`` (default): a pool of ``workers`` local processes (all usable cores by default) from
  the ``multiprocess`` package, which pickles with dill (closures and lambdas work). One task is handed
  out at a time (``chunksize=1``): tasks here are long (seconds), so balance matters more than
  messaging. On Linux the workers ask the kernel to kill them when the parent dies (``PR_SET_PDEATHSIG``),
  so a ``kill -9`` of the command leaves no orphaned workers behind.
- ``dask``: ``dask.distributed`` on the cluster at ``scheduler`` (``tcp://HOST:PORT``), or a local
  cluster of ``workers`` single-threaded processes when no address is given, with Dask's monitoring
  slowed down (``LOCAL_DASK_CONFIG``) so that it does not take CPU from the tasks. Dask is the optional
  extra ``pokerduel[dask]``; without it the backend raises an ``ImportError`` saying how to install it.

A task that raises makes ``map_unordered`` raise that error; results yielded before stay valid.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
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


def default_workers() -> int:
    """The number of CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _call_indexed(fn, indexed):
    index, item = indexed
    return index, fn(item)


def _die_with_parent(parent_pid: int) -> None:
    """Pool initializer: on Linux, get SIGKILL when the parent process exits (best effort elsewhere)."""
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

    def close(self) -> None:
        """Release processes or cluster connections (idempotent)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class SerialBackend(Backend):
    """Every task in this process, in order."""

    name = "serial"

    def __init__(self):
        super().__init__(1)

    def map_unordered(self, fn, items):
        for index, item in enumerate(items):
            yield index, fn(item)


class MultiprocessBackend(Backend):
    """A pool of local worker processes (``multiprocess``, dill pickling), started on first use."""

    name = "multiprocess"

    def __init__(self, workers: int | None = None, context: str | None = None):
        super().__init__(default_workers() if workers is None else workers)
        self._context = context
        self._pool = None

    def _get_pool(self):
        if self._pool is None:
            import multiprocess

            ctx = multiprocess.get_context(self._context)
            self._pool = ctx.Pool(self.workers, initializer=_die_with_parent, initargs=(os.getpid(),))
        return self._pool

    def map_unordered(self, fn, items):
        items = list(items)
        if not items:
            return
        pool = self._get_pool()
        try:
            yield from pool.imap_unordered(functools.partial(_call_indexed, fn), enumerate(items), chunksize=1)
        except BaseException:
            self.close(terminate=True)
            raise

    def close(self, terminate: bool = False) -> None:
        if self._pool is not None:
            if terminate:
                self._pool.terminate()
            else:
                self._pool.close()
            self._pool.join()
            self._pool = None


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
            with dask.config.set(LOCAL_DASK_CONFIG):
                self._cluster = LocalCluster(n_workers=1 if threads else n, threads_per_worker=n if threads else 1,
                                             processes=not threads, dashboard_address=None)
                self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as err:
                raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler} ({err})") from None
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
            for future in as_completed(futures):
                yield future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise

    def close(self) -> None:
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
