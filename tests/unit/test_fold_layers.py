"""Grouping the folder's steps into projections keeps the sequential fold's result (no JVM)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.runners.fold_fields import _layers

FIELDS = 4
step = st.tuples(
    st.sets(st.integers(0, FIELDS - 1), min_size=1),  # fields written
    st.sets(st.integers(0, FIELDS - 1)),  # fields read
    st.booleans(),  # fired on this row
)


def _value(k: int, field: int, reads: set[int], state: list[int]) -> int:
    """A step's new value for ``field``: depends on the step, the field and what it reads."""
    return (k + 1) * 1000 + field * 100 + sum(state[i] * (i + 3) for i in sorted(reads)) % 97


def _sequential(steps: list[tuple[set[int], set[int], bool]]) -> list[int]:
    state = list(range(FIELDS))
    for k, (writes, reads, fired) in enumerate(steps):
        if fired:
            state = [_value(k, i, reads, state) if i in writes else v for i, v in enumerate(state)]
    return state


def _layered(steps: list[tuple[set[int], set[int], bool]]) -> list[int]:
    state = list(range(FIELDS))
    for layer in _layers([(w, r) for w, r, _ in steps]):
        before = list(state)  # every step of a projection sees the previous projection's state
        for k in layer:  # in fold order, so the last writer of a field wins
            writes, reads, fired = steps[k]
            if fired:
                for i in writes:
                    state[i] = _value(k, i, reads, before)
    return state


@settings(max_examples=400, deadline=None)
@given(st.lists(step, max_size=12))
def test_layers_equal_the_sequential_fold(steps: list[tuple[set[int], set[int], bool]]) -> None:
    assert _layered(steps) == _sequential(steps)


@given(st.lists(step, max_size=12))
def test_every_step_is_in_exactly_one_layer_in_order(
    steps: list[tuple[set[int], set[int], bool]],
) -> None:
    layers = _layers([(w, r) for w, r, _ in steps])
    assert sorted(k for layer in layers for k in layer) == list(range(len(steps)))
    assert all(layer == sorted(layer) and layer for layer in layers)


def test_independent_writes_share_one_projection_and_chains_do_not() -> None:
    defaults = [({k % 3}, set()) for k in range(30)]  # set(f = <from the input>)
    assert len(_layers(defaults)) == 1
    increments = [({k % 3}, {k % 3}) for k in range(30)]  # set(f = currentResult.f + 1)
    assert len(_layers(increments)) == 10
