"""promote_all: objects kept after a collector pause go to the oldest generation unwalked."""

from __future__ import annotations

import gc

from kobrowser.snapshot._ax import gc_paused, promote_all


def _young() -> set[int]:
    return {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}


def test_kept_objects_leave_the_young_generations() -> None:
    with gc_paused():
        kept = [[i] for i in range(5000)]
        young = _young()
        assert sum(id(o) in young for o in kept) == len(kept)
        promote_all()
    young = _young()
    assert not any(id(o) in young for o in kept)
    assert all(gc.is_tracked(o) for o in kept)  # still the collector's: a full pass sees them
    assert gc.get_freeze_count() == 0
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
        young = _young()
        assert sum(id(o) in young for o in kept) == len(kept)
    finally:
        gc.unfreeze()
    assert frozen
