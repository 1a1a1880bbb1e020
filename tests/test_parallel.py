"""Execution backends: every task's result comes back once, with its index, whatever the backend."""

import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from pokerduel.infra.parallel import BACKENDS, DASK_HINT, default_workers, get_backend


def _square_and_pid(x):
    return x * x, os.getpid()


def _fail_on_three(x):
    if x == 3:
        raise RuntimeError("task 3 failed")
    return x


def test_serial_yields_in_order_in_this_process():
    with get_backend("serial") as b:
        out = list(b.map_unordered(_square_and_pid, range(5)))
    assert [i for i, _ in out] == list(range(5))
    assert [r for _, (r, _) in out] == [0, 1, 4, 9, 16]
    assert {pid for _, (_, pid) in out} == {os.getpid()}
    assert b.workers == 1 and b.describe() == "serial (1 worker)"


def test_multiprocess_returns_every_result_once_from_worker_processes():
    items = list(range(20))
    with get_backend("multiprocess", workers=2) as b:
        out = list(b.map_unordered(_square_and_pid, items))
        again = dict(b.map_unordered(lambda x: x + 1, items))  # dill pickles closures and lambdas
    assert sorted(i for i, _ in out) == items
    assert all(r == items[i] ** 2 for i, (r, _) in out)
    pids = {pid for _, (_, pid) in out}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert again == {i: i + 1 for i in items}


def test_multiprocess_empty_input_starts_nothing():
    with get_backend("multiprocess", workers=2) as b:
        assert list(b.map_unordered(_square_and_pid, [])) == []
        assert b._procs == []


@pytest.mark.parametrize("name", ["serial", "multiprocess"])
def test_a_failing_task_raises_in_the_caller(name):
    kwargs = {"workers": 2} if name == "multiprocess" else {}
    with get_backend(name, **kwargs) as b:
        with pytest.raises(RuntimeError, match="task 3 failed"):
            list(b.map_unordered(_fail_on_three, range(6)))


def test_default_workers_is_all_usable_cores():
    assert default_workers() == len(os.sched_getaffinity(0))
    assert get_backend("multiprocess").workers == default_workers()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "threads"}, "unknown backend 'threads'"),
        ({"name": "multiprocess", "workers": 0}, "workers must be a positive integer"),
        ({"name": "serial", "workers": 2}, "serial backend runs one worker"),
        ({"name": "multiprocess", "scheduler": "tcp://x:1"}, "only applies to the dask backend"),
    ],
)
def test_bad_options_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        get_backend(**kwargs)


def test_dask_missing_says_how_to_install(monkeypatch):
    for name in ("dask", "dask.distributed"):      # as if Dask were not installed
        monkeypatch.setitem(sys.modules, name, None)
    assert "dask" in BACKENDS
    with pytest.raises(ImportError) as err:
        get_backend("dask")
    assert str(err.value) == DASK_HINT and 'pip install "pokerduel[dask]"' in DASK_HINT


def _die_on_two(x):
    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return x


def _slow_square(x):
    time.sleep(0.02)
    return x * x


def test_a_worker_that_dies_in_a_task_raises_instead_of_waiting():
    with get_backend("multiprocess", workers=2) as b:
        t0 = time.perf_counter()
        with pytest.raises(RuntimeError, match=r"worker process ended \(exit code -9\)"):
            list(b.map_unordered(_die_on_two, range(6)))
        assert time.perf_counter() - t0 < 30
        assert b._procs == []                      # the others were killed, none left running
        assert dict(b.map_unordered(_slow_square, range(4))) == {i: i * i for i in range(4)}  # starts afresh


def test_threads_share_the_workers_and_each_gets_its_own_results():
    with get_backend("multiprocess", workers=2) as b:
        with ThreadPoolExecutor(3) as pool:
            runs = [pool.submit(lambda k=k: dict(b.map_unordered(lambda x, k=k: (k, _slow_square(x)), range(15))))
                    for k in range(3)]
            got = [r.result(timeout=120) for r in runs]
    assert got == [{i: (k, i * i) for i in range(15)} for k in range(3)]


def test_ending_after_an_error_kills_the_busy_workers_and_keeps_the_worker_traceback():
    with get_backend("multiprocess", workers=2) as b:
        assert dict(b.map_unordered(_slow_square, range(2))) == {0: 0, 1: 1}
        workers = [w.process for w in b._procs]
        with pytest.raises(RuntimeError, match="task 3 failed") as err:
            list(b.map_unordered(_fail_on_three, range(6)))
        assert len(workers) == 2 and all(p.exitcode is not None for p in workers)
    assert any("in the worker process" in n and "_fail_on_three" in n for n in getattr(err.value, "__notes__", []))


def test_workers_started_by_a_thread_that_ends_keep_working():
    # Linux sends the parent-death signal when the thread that started a process ends
    with get_backend("multiprocess", workers=2) as b:
        t = threading.Thread(target=lambda: list(b.map_unordered(_slow_square, range(2))))
        t.start()
        t.join()
        time.sleep(0.2)
        assert dict(b.map_unordered(_slow_square, range(4))) == {i: i * i for i in range(4)}
