"""promote_all: objects kept after a collector pause go to the oldest generation unwalked."""

from __future__ import annotations

import gc

from kobrowser.snapshot._ax import gc_paused, promote_all


def _young() -> set[int]:
    return {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}


def test_kept_objects_leave_the_young_generations_without_a_collection() -> None:
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with gc_paused():
            kept = [[i] for i in range(5000)]
            assert sum(id(o) in _young() for o in kept) == len(kept)
            promote_all()
            assert gc.get_count()[0] < 100
        assert not any(id(o) in _young() for o in kept)
        assert all(gc.is_tracked(o) for o in kept)
        assert gc.get_freeze_count() == 0
        assert collections == []
    finally:
        gc.callbacks.remove(count)
    assert gc.isenabled()


def test_objects_frozen_by_someone_else_stay_frozen() -> None:
    frozen = [[1], [2]]
    gc.freeze()
    try:
        held = gc.get_freeze_count()
        assert held > 0
        kept = [[i] for i in range(100)]
        promote_all()
        assert gc.get_freeze_count() == held
        assert sum(id(o) in _young() for o in kept) == len(kept)
    finally:
        gc.unfreeze()
    assert frozen
