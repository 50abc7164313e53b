"""``RulePolicy``: what untrusted rule text may do, enforced on the syntax tree."""

from __future__ import annotations

from dataclasses import dataclass, field

from quality_py.model.blooms import BloomSpec
from quality_py.model.limits import Limits


@dataclass(frozen=True, slots=True)
class RulePolicy:
    """What rule, lambda and output text may contain.

    The default is the safe policy, applied to every suite unless the caller passes another:
    an allowlist of deterministic Spark functions, our library functions and the suite's lambdas;
    subqueries only against ``allowed_views``; regex literals checked; amplifying functions capped;
    limits on size and nesting. ``RulePolicy.trusted()`` is for suites written in code by the
    pipeline's own authors: anything Spark accepts (limits still apply, as the parser needs them).

    >>> RulePolicy(allowed_views=frozenset({"airports"})).allowed_views
    frozenset({'airports'})
    """

    trusted: bool = False
    limits: Limits = field(default_factory=Limits)
    allowed_views: frozenset[str] = frozenset()
    allowed_functions: frozenset[str] = frozenset()  # e.g. session UDFs you vouch for
    max_amplification: int = 10_000  # cap on repeat/space/lpad/rpad/array_repeat/sequence
    allow_regex_columns: bool = False  # regex patterns that are not literals
    contain_errors: bool = True  # rewrite ANSI-failing operations to their try_ forms
    #: text from the data meeting a number, date, timestamp or boolean (``amount > 0`` with a
    #: string ``amount``): Spark converts the text itself, to a type the rule never names
    #: ('613.86' > 0 casts to BIGINT and fails), so the safe policy refuses the rule naming the
    #: column and the cast to write; True contains the conversion (text that is no number fails)
    allow_implicit_casts: bool = False
    #: current_date(), current_timestamp(), now(): fixed once per query by Spark, so "not in the
    #: future" rules work; a strict policy (False) refuses them for reproducible reruns
    allow_clock: bool = True
    #: bit operators (``>>``, ``<<``, ``&``, ``|``, ``^``, ``~``): nobody writes them in a
    #: data-quality rule, and the typo ``a > > 0`` parses as a shift; the functions
    #: (``shiftright`` ...) stay allowed
    allow_bitwise_operators: bool = False
    #: joins inside a rule's subquery: even an equi-join on a key that is not unique multiplies
    #: rows, and a lookup is evaluated for every input row; one view per SELECT by default
    allow_lookup_joins: bool = False
    #: aggregate functions (sum, count, avg, ...) at the top of an expression: the expression
    #: runners evaluate rules over the whole input and turn this on for their suites
    allow_aggregates: bool = False
    #: random and unique ids (rng, rng_id, rng_bytes, unique_id): a rerun gives other values, so
    #: the safe policy refuses every rule Spark finds nondeterministic
    allow_random: bool = False
    #: subqueries (lookups, maps, IN and EXISTS over views) in one suite: Spark joins each
    #: correlated one into the suite's one plan, and past about 150 of them (measured on Spark
    #: 4.3, local[2]) an executor's stack overflows and the JVM ends; 64 leaves room for
    #: smaller stacks
    max_subqueries: int = 64
    #: distinct window partitionings (``OVER (PARTITION BY ...)`` key sets) in one suite: each
    #: is one shuffle and sort of the whole input (rules sharing a key set share it)
    max_window_keys: int = 8
    #: bloom filters rules may test with ``probability_in`` (loaded by ``io.blooms.load_bloom``)
    blooms: frozenset[BloomSpec] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_views", frozenset(v.lower() for v in self.allowed_views))
        object.__setattr__(
            self, "allowed_functions", frozenset(f.lower() for f in self.allowed_functions)
        )

    @property
    def random_allowed(self) -> bool:
        """Whether a rule may give other values on a rerun (random ids allowed, or a trusted
        suite): then every rule is evaluated once in its own column, never shared or repeated.

        >>> RulePolicy().random_allowed, RulePolicy(allow_random=True).random_allowed
        (False, True)
        """
        return self.allow_random or self.trusted

    @classmethod
    def trusted_policy(cls, **changes: object) -> RulePolicy:
        """The policy for code-defined suites: no allowlist (limits and containment stay)."""
        return cls(trusted=True, **changes)  # type: ignore[arg-type]

    def with_views(self, *views: str) -> RulePolicy:
        """A copy that also allows subqueries over ``views``.

        >>> sorted(RulePolicy().with_views("Airports", "airlines").allowed_views)
        ['airlines', 'airports']
        """
        from dataclasses import replace

        return replace(self, allowed_views=self.allowed_views | {v.lower() for v in views})

    def with_blooms(self, *blooms: BloomSpec) -> RulePolicy:
        """A copy whose rules may also test membership in ``blooms``.

        >>> spec = BloomSpec("ids", 64, 2, 0.01, "bigint")
        >>> [b.name for b in RulePolicy().with_blooms(spec).blooms], RulePolicy().blooms
        (['ids'], frozenset())
        """
        from dataclasses import replace

        names = {b.name.lower() for b in blooms}
        kept = frozenset(b for b in self.blooms if b.name.lower() not in names)
        views = self.allowed_views | names
        return replace(self, blooms=kept | frozenset(blooms), allowed_views=views)

    def bloom(self, name: str) -> BloomSpec | None:
        """The loaded bloom called ``name`` (any case), if the policy has it.

        >>> policy = RulePolicy().with_blooms(BloomSpec("Ids", 64, 2, 0.01, "bigint"))
        >>> policy.bloom("ids").bits, policy.bloom("other")
        (64, None)
        """
        return next((b for b in self.blooms if b.name.lower() == name.lower()), None)


#: The policy applied when none is given.
DEFAULT_POLICY = RulePolicy()
