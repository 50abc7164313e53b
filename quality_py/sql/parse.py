"""Parse rule, lambda and output text into sqlglot ASTs, with errors that name the item.

Only single expressions are accepted: statements (``SELECT`` at the top level, DDL, ``;``-separated
lists, commands) are rejected before the parser runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token, TokenType

from quality_py.errors import LambdaError, PolicyError, QualityError, RuleSyntaxError, Span
from quality_py.model.ids import Id
from quality_py.model.limits import HARD_LIMITS, Limits, strictest
from quality_py.model.policy import RulePolicy
from quality_py.model.rules import LambdaFunction
from quality_py.sql.allowed.scan import check_limits
from quality_py.sql.dialect import DIALECT, STATEMENT_TOKENS
from quality_py.sql.syntax_messages import plain_message


def _article(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def _span_of_line_col(text: str, line: int, col: int) -> Span:
    lines = text.split("\n")
    line = max(1, min(line, len(lines)))
    offset = sum(len(ln) + 1 for ln in lines[: line - 1]) + max(col - 1, 0)
    return Span.from_offsets(text, offset)


def _tokenize(text: str, item_id: Id | None, kind: str, base: str) -> list[Token]:
    try:
        return list(DIALECT.tokenize(text))
    except TokenError as err:
        start = getattr(err, "start", None)
        span = (
            Span.from_offsets(text, start) if isinstance(start, int) and start < len(text) else None
        )
        rest = text[start : start + 60] if isinstance(start, int) else ""
        raise RuleSyntaxError(
            plain_message(str(err), rest), item_id=item_id, item_kind=kind, source=base, span=span
        ) from None


def _token_span(text: str, tok: Token) -> Span:
    return Span.from_offsets(text, tok.start, tok.end + 1)


#: Items whose text may be a bare ``SELECT`` (the original documents it for lambda bodies and
#: outputs); a rule is a verdict and stays an expression (a subquery there is parenthesised).
BARE_SELECT_KINDS = frozenset({"lambda", "output", "folder output"})


def _parse_tokens(
    tokens: list[Token], text: str, item_id: Id | None, kind: str
) -> list[exp.Expr | None]:
    """sqlglot's parse of ``tokens``, every failure of it a :class:`RuleSyntaxError` naming the
    item (sqlglot fails on some inputs with a plain Python error; it is still the text that is
    wrong)."""
    try:
        return list(DIALECT.parser().parse(tokens, text))
    except ParseError as err:
        info = err.errors[0] if err.errors else {}
        span = None
        token = str(info.get("highlight") or "")
        if info.get("line"):  # sqlglot's column is the token's last character: point at its first
            col = int(info.get("col") or 1) - max(len(token) - 1, 0)
            span = _span_of_line_col(text, int(info["line"]), max(col, 1))
        raise RuleSyntaxError(
            plain_message(str(info.get("description") or err), token),
            item_id=item_id,
            item_kind=kind,
            source=text,
            span=span,
        ) from None
    except RecursionError:
        raise RuleSyntaxError(
            f"{kind} text is nested too deeply to parse",
            item_id=item_id,
            item_kind=kind,
            source=text,
        ) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise RuleSyntaxError(
            f"{kind} text cannot be read as one Spark SQL expression",
            item_id=item_id,
            item_kind=kind,
            source=text,
        ) from None


def parse_expression(
    text: str,
    *,
    item_id: Id | None = None,
    kind: str = "rule",
    offset: int = 0,
    limits: Limits | None = HARD_LIMITS,
) -> exp.Expr:
    """Parse one Spark SQL expression.

    ``offset`` is where ``text`` starts inside the item's full source (for lambda bodies), so
    spans point into the full text. ``limits`` are scanned first (the parser's hard limits by
    default); None when the caller has scanned the text already (the compiler scans once).

    >>> parse_expression("a % 2 == 0").sql("spark")
    'a % 2 = 0'
    """
    source = text if offset == 0 else None
    problem = None
    if limits is not None:  # iterative, before sqlglot
        problem = check_limits(text, limits, control_chars=False)
    if problem is not None:
        raise PolicyError(problem, item_id=item_id, item_kind=kind, source=text[:200])
    tokens = _tokenize(text, item_id, kind, text)
    if not tokens:
        raise RuleSyntaxError(f"empty {kind} text", item_id=item_id, item_kind=kind, source=text)
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON:
            raise RuleSyntaxError(
                f"{_article(kind)} must be a single expression; ';' is not allowed",
                item_id=item_id,
                item_kind=kind,
                source=text,
                span=_token_span(text, tok),
                code="UNSUPPORTED_STATEMENT",
            )
    first = tokens[0]
    # a bare query (``ii -> select max(i) from t where i > ii``, as the original documents it)
    # is the scalar subquery it reads as; only a plain SELECT, nothing else that starts a
    # statement
    bare_select = first.token_type == TokenType.SELECT and kind in BARE_SELECT_KINDS
    if first.token_type in STATEMENT_TOKENS and not bare_select:
        raise RuleSyntaxError(
            f"{_article(kind)} must be an expression, not a {first.text.upper()} statement",
            item_id=item_id,
            item_kind=kind,
            source=text,
            span=_token_span(text, first),
            code="UNSUPPORTED_STATEMENT",
        )
    parsed = _parse_tokens(tokens, text, item_id, kind)
    parsed = [p for p in parsed if p is not None]
    if len(parsed) != 1:
        raise RuleSyntaxError(
            f"{_article(kind)} must be exactly one expression",
            item_id=item_id,
            item_kind=kind,
            source=text,
            code="UNSUPPORTED_STATEMENT",
        )
    tree = parsed[0]
    assert tree is not None
    if bare_select and type(tree) is exp.Select:
        tree = exp.Subquery(this=tree)
    is_query = isinstance(tree, exp.Query) and not isinstance(tree, exp.Subquery)
    if (
        is_query
        or isinstance(tree, (exp.Command, exp.DDL, exp.DML))
        or (tree.__class__.__name__ in {"Set", "Use", "Pragma", "Describe"})
    ):
        raise RuleSyntaxError(
            f"{_article(kind)} must be an expression, not a {tree.key.upper()} statement",
            item_id=item_id,
            item_kind=kind,
            source=source or text,
            code="UNSUPPORTED_STATEMENT",
        )
    return tree


@dataclass(frozen=True, slots=True)
class ParsedLambda:
    """A user lambda split into parameter names and a parsed body."""

    name: str
    params: tuple[str, ...]
    body: exp.Expr
    id: Id
    source: str

    @property
    def arity(self) -> int:
        """Number of parameters (0 for a plain expression)."""
        return len(self.params)


def _lambda_header(tokens: list[Token]) -> tuple[tuple[str, ...], int] | None:
    """Recognise ``x ->`` or ``(a, b) ->`` at the start; return params and the arrow's index."""
    ident = {TokenType.VAR, TokenType.IDENTIFIER}

    def is_name(tok: Token) -> bool:
        # a parameter may be spelled like a keyword (row, key, value): it is still a name here
        return tok.token_type in ident or tok.text.isidentifier()

    if len(tokens) >= 2 and is_name(tokens[0]) and tokens[1].token_type == TokenType.ARROW:
        return (tokens[0].text,), 1
    if not tokens or tokens[0].token_type != TokenType.L_PAREN:
        return None
    params: list[str] = []
    i = 1
    while i < len(tokens):
        tok = tokens[i]
        if tok.token_type == TokenType.R_PAREN:
            break
        if is_name(tok):
            params.append(tok.text)
        elif tok.token_type != TokenType.COMMA:
            return None
        i += 1
    if i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.ARROW and params:
        return tuple(params), i + 1
    return None


_OPERATOR_TOKENS = {
    TokenType.AMP: "&",
    TokenType.PIPE: "|",
    TokenType.CARET: "^",
    TokenType.TILDE: "~",
}


def bit_operator(text: str) -> tuple[str, int] | None:
    """The first bit operator written in ``text`` and its offset, from the tokens (the function
    forms ``shiftright(...)`` parse to the same tree nodes, so the tree cannot tell them apart).

    >>> bit_operator("amount > > 0"), bit_operator("a || b"), bit_operator("shiftright(a, 1)")
    (('>>', 7), None, None)
    """
    if not any(c in text for c in "&|^~") and text.count(">") < 2 and text.count("<") < 2:
        return None  # no such token can be written without these characters: no tokenizing
    try:
        tokens = DIALECT.tokenize(text)
    except Exception:
        return None  # the parser reports it
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.token_type in _OPERATOR_TOKENS:
            return _OPERATOR_TOKENS[tok.token_type], tok.start
        if nxt is not None and tok.token_type == nxt.token_type:
            if tok.token_type == TokenType.GT:
                return ">>", tok.start
            if tok.token_type == TokenType.LT:
                return "<<", tok.start
    return None


def check_text(
    text: str,
    policy: RulePolicy,
    *,
    item_id: Id | None = None,
    kind: str = "rule",
    limits: Limits | None = None,
) -> None:
    """The gate every text passes before it is parsed, a rule's and a SQL check's alike: the
    policy's limits and the parser's hard limits (or ``limits``) in one scan of the raw text,
    then the bit operators the policy refuses, from the tokens.

    >>> from quality_py.model.policy import DEFAULT_POLICY
    >>> check_text("a >> 1 > 0", DEFAULT_POLICY)
    Traceback (most recent call last):
    ...
    quality_py.errors.PolicyError: [POLICY] the bit operator >> is refused by the rule policy ...
    """
    problem = check_limits(text, limits or strictest(policy.limits, HARD_LIMITS))
    if problem is not None:
        raise PolicyError(problem, item_id=item_id, item_kind=kind, source=text[:200])
    if policy.trusted or policy.allow_bitwise_operators:
        return
    found = bit_operator(text)
    if found is not None:
        op, offset = found
        hint = " (a typo such as 'a > > 0' parses as a shift)" if op in (">>", "<<") else ""
        raise PolicyError(
            f"the bit operator {op} is refused by the rule policy{hint}; call shiftright, "
            "shiftleft or the bit functions if you mean it",
            item_id=item_id,
            item_kind=kind,
            source=text,
            span=Span.from_offsets(text, offset, offset + len(op)),
        )


def lambda_arity(text: str) -> int:
    """The number of parameters of lambda text (0 for a plain expression), from its header only.

    >>> lambda_arity("(a, b) -> a + b"), lambda_arity("x -> x"), lambda_arity("1 + 2")
    (2, 1, 0)
    """
    try:
        tokens = _tokenize(text, None, "lambda", text)
    except QualityError:
        return 0  # not even tokens: the parse of the whole text reports it, with the lambda's id
    header = _lambda_header(tokens)
    return 0 if header is None else len(header[0])


def parse_lambda(fn: LambdaFunction, *, limits: Limits | None = HARD_LIMITS) -> ParsedLambda:
    """Parse a :class:`LambdaFunction`; text without ``->`` is a zero-argument lambda.

    >>> from quality_py.model.rules import LambdaFunction
    >>> pl = parse_lambda(LambdaFunction("between", "(x, lo, hi) -> x >= lo and x <= hi", Id(1, 1)))
    >>> pl.params, pl.body.sql("spark")
    (('x', 'lo', 'hi'), 'x >= lo AND x <= hi')
    """
    text = fn.expression
    tokens = _tokenize(text, fn.id, "lambda", text)
    header = _lambda_header(tokens)
    if header is None:
        body = parse_expression(text, item_id=fn.id, kind="lambda", limits=limits)
        return ParsedLambda(fn.name, (), body, fn.id, text)
    params, arrow = header
    lowered = [p.lower() for p in params]
    if len(set(lowered)) != len(lowered):
        raise LambdaError(
            f"lambda {fn.name} repeats a parameter name: {', '.join(params)}",
            item_id=fn.id,
            item_kind="lambda",
            source=text,
            code="LAMBDA_SYNTAX",
        )
    start = tokens[arrow].end + 1
    body_text = text[start:]
    if not body_text.strip():
        raise RuleSyntaxError(
            f"lambda {fn.name} has no body after '->'",
            item_id=fn.id,
            item_kind="lambda",
            source=text,
            span=Span.from_offsets(text, start),
            code="LAMBDA_SYNTAX",
        )
    try:
        body = parse_expression(body_text, item_id=fn.id, kind="lambda", limits=limits)
    except RuleSyntaxError as err:
        span = err.span
        if span is not None:
            span = Span.from_offsets(text, start + span.start, start + span.end)
        raise RuleSyntaxError(
            err.message, item_id=fn.id, item_kind="lambda", source=text, span=span, code=err.code
        ) from None
    return ParsedLambda(fn.name, params, body, fn.id, text)
