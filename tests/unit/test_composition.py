"""PIPELINE_THREADS: how many questions a worker works on at once (Resources.run)."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.composition import Resources
from app.core.config import Settings


def _resources(threads: int) -> Resources:
    settings = Settings(_env_file=None, pipeline_threads=threads)  # type: ignore[call-arg]
    none: Any = None
    return Resources(settings, none, none, none, none, none)


def _run_concurrently(resources: Resources, n: int) -> tuple[int, list[str]]:
    """n questions at once through Resources.run; (most ever running together, thread names)."""
    lock = threading.Lock()
    running, most, names = 0, 0, []

    def work() -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return threading.current_thread().name

    async def main() -> list[str]:
        return list(await asyncio.gather(*(resources.run(work) for _ in range(n))))

    # asyncio.run() refuses to start inside a running loop (pytest plugins may hold one)
    with ThreadPoolExecutor(1) as pool:
        names = pool.submit(asyncio.run, main()).result()
    return most, names


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_no_more_questions_at_once_than_pipeline_threads(threads: int) -> None:
    most, names = _run_concurrently(_resources(threads), 8)
    assert len(names) == 8  # every question was answered, in turn
    assert most == threads


def test_the_pipeline_runs_off_the_event_loop_thread() -> None:
    _, names = _run_concurrently(_resources(2), 2)
    assert threading.main_thread().name not in names
    assert all(name != "MainThread" for name in names)


def test_by_default_one_question_at_a_time_extractive_sixteen_with_a_model() -> None:
    extractive = Settings(_env_file=None, pipeline_threads=0)  # type: ignore[call-arg]
    model = Settings(  # type: ignore[call-arg]
        _env_file=None,
        pipeline_threads=0,
        generator="openai",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model="m",
    )
    assert (extractive.pipeline_concurrency, model.pipeline_concurrency) == (1, 16)
    assert Settings(_env_file=None, pipeline_threads=3).pipeline_concurrency == 3  # type: ignore[call-arg]
    most, _ = _run_concurrently(_resources(0), 4)
    assert most == 1


def test_pipeline_threads_is_checked() -> None:
    with pytest.raises(ValueError, match="pipeline_threads"):
        Settings(_env_file=None, pipeline_threads=-1)  # type: ignore[call-arg]
