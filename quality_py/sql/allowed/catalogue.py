"""What we know of every Spark function a rule may call: its signatures and how its size grows.

This table *is* the allowlist (``sql/allowed/functions.py`` reads its names): a function with no
entry cannot be called, so every callable function has both a declaration of size, which the
growth pass (``sql/passes/bound_growth.py``) computes with, and signatures, from which
``tests/spark/test_function_fuzz.py`` derives adversarial arguments and checks on Spark that
one bad value fails its row and never the job, and that the declared sizes hold.

**Signatures** are argument kinds separated by commas, alternatives by ``|``. Data kinds are
columns of the fuzzed frame: ``s`` string, ``n`` int, ``l`` bigint, ``d`` double, ``x``
decimal, ``b`` boolean, ``dt`` date, ``ts`` timestamp, ``bin`` binary, ``a`` array<int>,
``as`` array<string>, ``aa`` array<array<int>>, ``m`` map<string,int>, ``st`` a struct,
``ntz`` timestamp_ntz, ``sec`` decimal(16, 6) (seconds with microseconds).
Kinds starting with ``#`` are literals the rule writes (patterns, formats, counts, lambdas),
drawn from pools of good and hostile values. A signature holding ``(`` is a whole call template
whose ``{kind}`` holes are filled (syntax such as ``CAST(s AS INT)``).

**Sizes** bound the size of the value (characters, bytes or elements, each element counting at
least one) by the sizes of the arguments:

* ``fixed``: at most a constant (numbers, dates, booleans, digests, positions);
* ``sum``: at most the sum of the arguments plus a constant (parts, concatenations,
  collections of the arguments, one of them);
* ``scale K``: at most K times the sum (``hex`` doubles, ``upper('ß')`` is two letters);
* ``amp``: a literal count times the argument (``repeat``, ``lpad``, ``sequence`` ...);
* ``product I``: argument I times the others (each match replaced by a replacement);
* ``hof``: a higher-order function, bounded by its lambda (``bound_growth`` sums the body over
  the elements).

>>> SPECS["hex"].size, SPECS["repeat"].size
('scale 2', 'amp')
>>> SPECS["substring"].signatures
('s,n', 's,n,n')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """One allowlisted function: its call signatures and its size rule."""

    name: str
    signatures: tuple[str, ...]
    size: str

    @property
    def factor(self) -> int:
        """The K of ``scale K`` (1 for ``sum``)."""
        return int(self.size.split()[1]) if self.size.startswith("scale") else 1


# name: signatures ; size
_TABLE = """
abs: n | d | l ; fixed
acos: d ; fixed
acosh: d ; fixed
asin: d ; fixed
asinh: d ; fixed
atan: d ; fixed
atan2: d,d ; fixed
atanh: d ; fixed
bin: l ; fixed
bround: d | x | n | d,#n | x,#n | n,#n ; fixed
cbrt: d ; fixed
ceil: d | x | d,#n ; fixed
ceiling: d | x | d,#n ; fixed
conv: s,#base,#base ; fixed
cos: d ; fixed
cosh: d ; fixed
cot: d ; fixed
csc: d ; fixed
degrees: d ; fixed
e: ; fixed
exp: d ; fixed
expm1: d ; fixed
factorial: n ; fixed
floor: d | x | d,#n ; fixed
greatest: n,n | s,s,s ; sum
hex: l | s | bin ; scale 2
hypot: d,d ; fixed
least: n,n | s,s,s ; sum
ln: d ; fixed
log: d,d | d ; fixed
log10: d ; fixed
log1p: d ; fixed
log2: d ; fixed
mod: n,n | d,d ; fixed
negative: n | d ; fixed
pi: ; fixed
pmod: n,n | d,d ; fixed
positive: n | d ; fixed
pow: d,d ; fixed
power: d,d ; fixed
radians: d ; fixed
rint: d ; fixed
round: d | x | n | d,#n | x,#n | n,#n ; fixed
sec: d ; fixed
sign: d ; fixed
signum: d ; fixed
sin: d ; fixed
sinh: d ; fixed
sqrt: d ; fixed
tan: d ; fixed
tanh: d ; fixed
unhex: s ; sum
width_bucket: d,d,d,l ; fixed
try_add: n,n | l,l | dt,n ; fixed
try_subtract: n,n | l,l ; fixed
try_multiply: n,n | l,l ; fixed
try_divide: n,n | d,d ; fixed
try_mod: n,n ; fixed
div: l,l ; fixed
isnan: d ; fixed
nanvl: d,d ; fixed
ifnull: s,s | n,n ; sum
nullif: n,n | s,s ; sum
nvl: s,s | n,n ; sum
nvl2: s,s,s | n,n,n ; sum
coalesce: s,s | n,n,n ; sum
isnull: s | n ; fixed
isnotnull: s ; fixed
equal_null: n,n | s,s ; fixed
if: b,s,s | b,n,n ; sum
nullifzero: n | d ; fixed
zeroifnull: n | d ; fixed
ascii: s ; fixed
base64: bin | s ; scale 2
bit_length: s | bin ; fixed
btrim: s | s,s ; sum
char: l ; fixed
char_length: s | bin ; fixed
character_length: s | bin ; fixed
chr: l ; fixed
concat: s,s | s,s,s | a,a | bin,bin ; sum
concat_ws: #s,s,s | #s,as ; product 0
contains: s,s | bin,bin ; fixed
elt: n,s,s ; sum
endswith: s,s ; fixed
find_in_set: s,s ; fixed
format_number: d,#n | x,#n ; amp
initcap: s ; scale 3
instr: s,s ; fixed
lcase: s ; scale 3
left: s,n ; sum
len: s | bin ; fixed
length: s | bin ; fixed
levenshtein: s,s | s,s,n ; fixed
locate: s,s | s,s,n ; fixed
lower: s ; scale 3
lpad: s,#n | s,#n,#s ; amp
ltrim: s ; sum
mask: s | s,#s,#s,#s,#s ; scale 4
octet_length: s | bin ; fixed
overlay: s,s,n | s,s,n,n ; sum
position: s,s | s,s,n ; fixed
regexp_count: s,#re ; fixed
regexp_extract: s,#re | s,#re,n ; sum
regexp_extract_all: s,#re | s,#re,n ; scale 2
regexp_instr: s,#re | s,#re,n ; fixed
regexp_like: s,#re ; fixed
regexp_replace: s,#re,#rep | s,#re,#rep,n ; product 2
regexp_substr: s,#re ; sum
repeat: s,#n ; amp
replace: s,s | s,s,s ; product 2
reverse: s | a ; sum
right: s,n ; sum
rlike: s,#re ; fixed
rpad: s,#n | s,#n,#s ; amp
rtrim: s ; sum
soundex: s ; fixed
space: #n ; amp
split: s,#re | s,#re,n ; scale 2
split_part: s,s,n ; sum
startswith: s,s ; fixed
substr: s,n | s,n,n | bin,n,n ; sum
substring: s,n | s,n,n ; sum
substring_index: s,s,n ; sum
to_binary: s | s,#enc ; sum
to_number: s,#nfmt ; fixed
to_varchar: x,#nfmt | dt,#dfmt ; fixed
translate: s,s,s ; scale 2
trim: s ; sum
try_to_binary: s | s,#enc ; sum
try_to_number: s,#nfmt ; fixed
ucase: s ; scale 3
upper: s ; scale 3
luhn_check: s ; fixed
add_months: dt,n ; fixed
date_add: dt,n ; fixed
date_diff: dt,dt ; fixed
date_format: ts,#dfmt | dt,#dfmt ; fixed
date_from_unix_date: n ; fixed
date_part: #fieldq,ts | #fieldq,dt ; fixed
date_sub: dt,n ; fixed
date_trunc: #unit,ts ; fixed
dateadd: dt,n ; fixed
datediff: dt,dt ; fixed
datepart: #fieldq,ts ; fixed
day: dt ; fixed
dayname: dt ; fixed
dayofmonth: dt ; fixed
dayofweek: dt ; fixed
dayofyear: dt ; fixed
extract: extract({#field} FROM {ts}) ; fixed
from_unixtime: l | l,#dfmt ; fixed
from_utc_timestamp: ts,#tz ; fixed
hour: ts ; fixed
last_day: dt ; fixed
make_date: n,n,n ; fixed
make_timestamp: n,n,n,n,n,sec | n,n,n,n,n,sec,#tz ; fixed
make_timestamp_ltz: n,n,n,n,n,sec | n,n,n,n,n,sec,#tz ; fixed
make_timestamp_ntz: n,n,n,n,n,sec ; fixed
minute: ts ; fixed
month: dt ; fixed
monthname: dt ; fixed
months_between: ts,ts | ts,ts,b ; fixed
next_day: dt,#day ; fixed
quarter: dt ; fixed
second: ts ; fixed
timestamp_micros: l ; fixed
timestamp_millis: l ; fixed
timestamp_seconds: l | d ; fixed
to_date: s | s,#dfmt ; fixed
to_timestamp: s | s,#dfmt ; fixed
to_timestamp_ltz: s | s,#dfmt ; fixed
to_timestamp_ntz: s | s,#dfmt ; fixed
to_unix_timestamp: s,#dfmt | ts ; fixed
to_utc_timestamp: ts,#tz ; fixed
trunc: dt,#unit ; fixed
try_to_timestamp: s | s,#dfmt ; fixed
unix_date: dt ; fixed
unix_micros: ts ; fixed
unix_millis: ts ; fixed
unix_seconds: ts ; fixed
unix_timestamp: s,#dfmt | ts ; fixed
weekday: dt ; fixed
weekofyear: dt ; fixed
year: dt ; fixed
convert_timezone: #tz,#tz,ntz ; fixed
cast: CAST({s} AS INT) | CAST({s} AS DATE) | CAST({d} AS DECIMAL(5, 2)) | CAST({n} AS TINYINT) \
  | CAST({l} AS INT) | CAST({s} AS BOOLEAN) | CAST({d} AS STRING) ; scale 32
try_cast: TRY_CAST({s} AS INT) | TRY_CAST({l} AS INT) | TRY_CAST({s} AS TIMESTAMP) ; scale 32
date: s ; fixed
timestamp: s ; fixed
int: s | d | l ; fixed
bigint: s | d ; fixed
smallint: s | n ; fixed
tinyint: s | n ; fixed
double: s ; fixed
float: s | d ; fixed
decimal: s | d ; fixed
boolean: s | n ; fixed
string: n | d | a | m | dt | bin ; scale 32
binary: s ; sum
array: n,n | s,s ; sum
array_append: a,n ; sum
array_compact: a ; sum
array_contains: a,n ; fixed
array_distinct: a ; sum
array_except: a,a ; sum
array_insert: a,n,n ; amp
array_intersect: a,a ; sum
array_join: as,#s | as,#s,#s ; product 0
array_max: a ; sum
array_min: a ; sum
array_position: a,n ; fixed
array_prepend: a,n ; sum
array_remove: a,n ; sum
array_repeat: n,#n | s,#n ; amp
array_size: a ; fixed
array_sort: a | a,#l2 ; hof
array_union: a,a ; sum
arrays_overlap: a,a ; fixed
arrays_zip: a,a ; scale 2
cardinality: a | m ; fixed
element_at: a,n | m,s ; sum
exists: a,#l1 ; hof
filter: a,#l1 ; hof
flatten: aa ; sum
forall: a,#l1 ; hof
get: a,n ; sum
map: s,n | s,n,s,n ; sum
map_concat: m,m ; sum
map_contains_key: m,s ; fixed
map_entries: m ; scale 2
map_filter: m,#lk ; hof
map_from_arrays: as,a ; sum
map_keys: m ; sum
map_values: m ; sum
map_zip_with: m,m,#l3 ; hof
named_struct: named_struct('a', {s}, 'b', {n}) ; sum
reduce: a,#n,#l2 | a,#n,#l2,#l1 ; hof
aggregate: a,#n,#l2 | a,#n,#l2,#l1 ; hof
sequence: #n,#n | #n,#n,#n ; amp
size: a | m ; fixed
slice: a,n,n ; sum
sort_array: a | a,b ; sum
struct: s,n ; sum
transform: a,#l1 | a,#li ; hof
transform_keys: m,#lk ; hof
transform_values: m,#lk ; hof
try_element_at: a,n | m,s ; sum
zip_with: a,a,#l2 ; hof
from_json: s,#schema ; scale 8
get_json_object: s,#path ; sum
json_array_length: s ; fixed
json_object_keys: s ; sum
to_json: st | m | a ; scale 32
parse_url: s,#part | s,#part,s ; sum
url_decode: s ; sum
url_encode: s ; scale 9
crc32: s | bin ; fixed
hash: s | s,n ; fixed
md5: s | bin ; fixed
sha: bin ; fixed
sha1: bin ; fixed
sha2: bin,#bits ; fixed
xxhash64: s | n ; fixed
bit_count: n | l ; fixed
bit_get: l,n | n,n ; fixed
getbit: l,n | n,n ; fixed
shiftleft: n,n | l,n ; fixed
shiftright: n,n | l,n ; fixed
shiftrightunsigned: n,n | l,n ; fixed
typeof: s | a ; fixed
"""

#: Our library functions (``sql/library/``), by the size of what they return. They are
#: expanded after the growth pass, so it reads them as calls.
_LIBRARY_FIXED = """
passed failed soft_failed disabled_rule probability pack_ints unpack unpack_id_triple
rule_result probability_in bloom_contains digest_to_longs digest_to_longs_struct field_based_id
id_base64 id_from_base64 id_size id_raw_type hash_with hash_with_struct hash_field_based_id
murmur3_id long_pair as_uuid long_pair_from_uuid prefixed_to_long_pair long_pair_equal id_equal
rng rng_bytes rng_id unique_id rng_uuid provided_id za_hash_with za_hash_with_struct
za_hash_longs_with za_hash_longs_with_struct za_field_based_id za_longs_field_based_id
map_contains agg_expr is_unique is_unique_nulls_equal in_reference in_reference_null_safe
not_in_reference not_in_reference_null_safe
is_valid_uuid is_valid_ipv4_address is_ipv4_address_in_cidr is_valid_email is_valid_json
is_valid_ipv6_address is_ipv6_address_in_cidr is_valid_country_code is_valid_currency_code
is_valid_date is_valid_timestamp is_recent
"""
_LIBRARY_SCALED = """
soft_fail print_expr print_code rule_suite_result_details flatten_results
flatten_rule_results flatten_folder_results update_field drop_field strip_result_ddl
comparable_maps reverse_comparable_maps
"""
LIBRARY_SIZES: dict[str, str] = {
    **dict.fromkeys(_LIBRARY_FIXED.split(), "fixed"),
    **dict.fromkeys(_LIBRARY_SCALED.split(), "scale 2"),
    "map_lookup": "data",  # a value of the reference data: its size is the data's
    "to_yaml": "scale 32",
    "from_yaml": "scale 8",
}

#: Library names as the registry looks them up (lower case, no underscores: ``mapLookup``).
_LIBRARY_BY_KEY = {k.replace("_", ""): v for k, v in LIBRARY_SIZES.items()}
_SIZES = ("fixed", "sum", "amp", "hof", "data")


def _parse(table: str) -> dict[str, FunctionSpec]:
    specs: dict[str, FunctionSpec] = {}
    for line in table.strip().replace("\\\n", "").splitlines():
        name, rest = line.split(":", 1)
        signatures, size = rest.rsplit(";", 1)
        sigs = tuple(s.strip() for s in signatures.split("|"))
        size = size.strip()
        assert size in _SIZES or size.split()[0] in ("scale", "product"), line
        assert name not in specs, name
        specs[name.strip()] = FunctionSpec(name.strip(), sigs, size)
    return specs


#: Every function a rule may call, by name.
SPECS: dict[str, FunctionSpec] = _parse(_TABLE)


def size_rule(name: str) -> str | None:
    """The size rule of a Spark or library function (None: undeclared, growth unknown).

    >>> size_rule("upper"), size_rule("map_lookup"), size_rule("my_udf")
    ('scale 3', 'data', None)
    """
    spec = SPECS.get(name.lower())
    if spec is not None:
        return spec.size
    return _LIBRARY_BY_KEY.get(name.lower().replace("_", ""))
