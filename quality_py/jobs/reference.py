"""A job's reference data as one value, read once: the views named ``NAME=PATH``, the views and
lookup maps a views file declares, and its bloom filters (checksums checked). Before any Spark
session it gives the names rules may read and the policy they imply; with a session it registers
itself (each source read once, through the data gate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from quality_py.errors import InputError
from quality_py.io.blooms import Bloom, read_bloom, register_bloom
from quality_py.io.views import MapConfig, ViewConfig, load_views, read_view_file
from quality_py.jobs.inputs import read_input
from quality_py.model.policy import RulePolicy
from quality_py.model.types import SparkSession
from quality_py.spark.samples import SAMPLE_VIEWS


@dataclass(frozen=True)
class ReferenceData:
    """Views by path, a views file's declarations and blooms, and the sample's own views.

    >>> data = ReferenceData.read({"airports": "data/airports.csv"}, input="sample:flights")
    >>> data.names
    ('airports', 'airlines', 'airports', 'planes')
    >>> sorted(data.policy().allowed_views)
    ['airlines', 'airports', 'planes']
    """

    paths: tuple[tuple[str, str], ...] = ()
    views: tuple[ViewConfig, ...] = ()
    maps: tuple[MapConfig, ...] = ()
    blooms: tuple[Bloom, ...] = ()
    #: the views a sample input registers itself (``sample:flights``: airlines, airports, planes)
    sample_views: tuple[str, ...] = ()
    #: the input format of views given by path (None: by suffix)
    format: str | None = None
    #: the views file's blooms as ``(name, file)``
    files: tuple[tuple[str, str], ...] = ()
    #: the name the rules give the table itself (a table state answers it: nothing to register)
    table_view: str | None = None

    @classmethod
    def read(
        cls,
        paths: Mapping[str, str] | Sequence[tuple[str, str]] = (),
        views_file: str | None = None,
        *,
        input: str | None = None,
        format: str | None = None,
        table_view: str | None = None,
    ) -> ReferenceData:
        """Read the declarations (a views file is read once; no Spark): ``paths`` maps view
        names to files or tables, ``views_file`` is a YAML of views, maps and blooms, ``input``
        the job's input (a sample brings its own views)."""
        pairs = tuple(paths.items()) if isinstance(paths, Mapping) else tuple(paths)
        for name, path in pairs:
            if not name or not path:
                raise InputError(f"a view is NAME=PATH, not {name!r}={path!r}", item_kind="view")
        views: tuple[ViewConfig, ...] = ()
        maps: tuple[MapConfig, ...] = ()
        files: tuple[tuple[str, str], ...] = ()
        blooms: list[Bloom] = []
        if views_file:
            views, maps, files = read_view_file(views_file)  # the one read of the file
            for name, file in files:
                bloom = read_bloom(file)
                blooms.append(Bloom(replace(bloom.spec, name=name), bloom.words))
        sample = ""
        if input and input.startswith("sample:"):
            sample = input.split(":", 1)[1]
        sample_views = SAMPLE_VIEWS.get(sample, ())
        return cls(pairs, views, maps, tuple(blooms), sample_views, format, files, table_view)

    @property
    def names(self) -> tuple[str, ...]:
        """Every view the job's rules may read."""
        declared = (*(v.name for v in self.views), *(m.name for m in self.maps))
        own = (self.table_view,) if self.table_view else ()
        return (*(name for name, _ in self.paths), *declared, *self.sample_views, *own)

    def policy(self, base: RulePolicy | None = None) -> RulePolicy:
        """``base`` (the safe policy by default) allowing exactly these views and blooms."""
        policy = base or RulePolicy()
        return policy.with_views(*self.names).with_blooms(*(b.spec for b in self.blooms))

    def register(self, spark: SparkSession) -> tuple[str, ...]:
        """Register every view, map and bloom in ``spark``; the names registered."""
        names = []
        for name, path in self.paths:
            read_input(spark, path, self.format).createOrReplaceTempView(name)
            names.append(name)
        if self.views or self.maps:
            names += list(load_views(spark, self.views, self.maps).names)
        for bloom in self.blooms:
            register_bloom(spark, bloom)
        return tuple(names)

    def sources(self) -> tuple[tuple[str, str], ...]:
        """``(label, path)`` of every file this reference data reads (none written over): the
        views by path and the views file's sources (tables are names, not files)."""
        out = [(f"view {name!r}", path) for name, path in self.paths]
        out += [
            (f"view {v.name!r} of the views file", v.source)
            for v in self.views
            if v.source and v.format != "table"
        ]
        return tuple(out)

    def bloom_sources(self) -> tuple[tuple[str, str], ...]:
        """``(label, file)`` of the views file's blooms."""
        return tuple((f"bloom {name!r} of the views file", file) for name, file in self.files)
