/*
 * text_values.h — Spark's conversions between text and typed values, shared by the CSV and JSON
 * readers and writers: Java's Integer/Long/Double/BigDecimal parsing (what Spark's
 * `field.toInt`, `toLong`, `toDouble` and `new BigDecimal(field)` accept), Scala's `toBoolean`,
 * Spark's lenient date and timestamp parsing (DateTimeUtils.stringToDate / stringToTimestamp, used
 * when no dateFormat / timestampFormat is given), a subset of Java DateTimeFormatter patterns
 * for the formats a user gives (y M d H m s S, 'literal', [optional], XXX/Z), Decimal(p,s)
 * rescaling with HALF_UP, and the text a writer prints (Java's Double.toString, ISO dates,
 * timestamps as yyyy-MM-dd'T'HH:mm:ss.SSSXXX).
 *
 * Everything works on (pointer, length) views of a buffer; nothing allocates except the
 * compiled pattern (cs_tv_pattern_free). Timestamps are microseconds since the epoch in UTC; a
 * text without a zone is read in UTC (cspark has no session time zone yet). Dates are days since
 * 1970-01-01. Callers: formats/csv, formats/json.
 */
#ifndef CSPARK_FORMATS_TEXT_VALUES_H
#define CSPARK_FORMATS_TEXT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strutil.h"

bool cs_tv_parse_int(const char *s, size_t n, int64_t *out);   /* Integer.parseInt */
bool cs_tv_parse_long(const char *s, size_t n, int64_t *out);  /* Long.parseLong */
bool cs_tv_parse_double(const char *s, size_t n, double *out); /* Double.parseDouble */
bool cs_tv_parse_float(const char *s, size_t n, double *out);  /* Float.parseFloat, as a double */
bool cs_tv_parse_boolean(const char *s, size_t n, bool *out);  /* "true"/"false", any case */
/* new BigDecimal(s): unscaled value, precision (digits, 1 for zero) and scale (may be negative);
 * false when not a number or when the unscaled value has more than 38 digits (*too_long set). */
bool cs_tv_parse_decimal(const char *s, size_t n, __int128 *unscaled, int *precision, int *scale,
                         bool *too_long);
/* Decimal(value, p, s): rescales to `to_scale` rounding HALF_UP; false when the result needs more
 * than p digits. */
bool cs_tv_decimal_fit(__int128 unscaled, int scale, int p, int to_scale, __int128 *out);
/* Number of decimal digits of |v| (1 for zero). */
int cs_tv_decimal_digits(__int128 v);

/* Lenient, as Spark without a format: dates "yyyy", "yyyy-[m]m", "yyyy-[m]m-[d]d" followed by
 * nothing, ' ' or 'T' and anything; timestamps a date, then ' ' or 'T', [h]h:[m]m[:[s]s[.f]]
 * and an optional zone (Z, UTC, GMT, +hh, +hh:mm, +hhmm). has_zone tells whether a zone was
 * given (Spark infers TIMESTAMP_NTZ only without one). */
bool cs_tv_parse_date_lenient(const char *s, size_t n, int32_t *days);
bool cs_tv_parse_timestamp_lenient(const char *s, size_t n, int64_t *micros, bool *has_zone);
/* The same strictly as "yyyy-MM-dd" (Spark's date inference without dateFormat). */
bool cs_tv_parse_date_iso(const char *s, size_t n, int32_t *days);

typedef struct cs_tv_pattern cs_tv_pattern;
/* A Java DateTimeFormatter pattern; NULL (with *bad naming the letter) when it uses what is not
 * supported. */
cs_tv_pattern *cs_tv_pattern_new(const char *pattern, char *bad);
void cs_tv_pattern_free(cs_tv_pattern *p);
/* Parses the whole text; a missing date part is 1970-01-01, a missing time 00:00:00 UTC. */
bool cs_tv_pattern_parse(const cs_tv_pattern *p, const char *s, size_t n, int64_t *micros);
/* Formats micros (UTC) with the pattern (optional sections printed). */
void cs_tv_pattern_format(const cs_tv_pattern *p, int64_t micros, cs_sbuf *out);

#define CS_MICROS_PER_DAY 86400000000LL
/* The day of a timestamp (floor division: before 1970 too). */
static inline int64_t cs_tv_day_of(int64_t micros)
{
    return micros >= 0 ? micros / CS_MICROS_PER_DAY
                       : -((-micros + CS_MICROS_PER_DAY - 1) / CS_MICROS_PER_DAY);
}
int64_t cs_tv_days_from_civil(int64_t y, int m, int d);
void cs_tv_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
/* Java's Double.toString: "1.0", "1.5E10", "1.0E-5", "NaN", "Infinity". */
void cs_tv_format_double(double v, cs_sbuf *out);
void cs_tv_format_float(double v, cs_sbuf *out); /* Float.toString of (float)v */
/* Unscaled value with `scale` digits after the point: "-12.50". */
void cs_tv_format_decimal(__int128 unscaled, int scale, cs_sbuf *out);
void cs_tv_format_date(int64_t days, cs_sbuf *out);
/* "yyyy-MM-dd HH:mm:ss[.f]" of local microseconds, as Spark casts a timestamp to a string: the
 * fraction only when not zero, without trailing zeros (java.time's appendFraction(MICRO_OF_SECOND,
 * 0, 6, true)). */
void cs_tv_format_local_timestamp(int64_t micros, cs_sbuf *out);

/* Base64 as Jackson reads and writes binary values (Base64Variants.MIME_NO_LINEFEEDS: the
 * standard alphabet, '=' padding required, no line breaks; white space only between groups of
 * four). decode writes at most n * 3 / 4 bytes to out (which may be s itself: the output never
 * overtakes the input) and gives their number; false when the text is not such base64. */
bool cs_tv_base64_decode(const char *s, size_t n, char *out, size_t *out_n);
void cs_tv_base64_encode(const void *data, size_t n, cs_sbuf *out);

/* Spark's XORShiftRandom: the state XORShiftRandom.hashSeed gives a seed (MurmurHash3 of its 8
 * big-endian bytes, twice), next(bits) moving a state on, and java.util.Random.nextDouble over it.
 * The one implementation: the samplers below, rand / randn / randstr (sqlexec/kernels_random.c). */
uint64_t cs_tv_xorshift_seed(int64_t seed);
uint32_t cs_tv_xorshift_next(uint64_t *state, int bits);
double cs_tv_xorshift_next_double(uint64_t *state);

/* Spark's Dataset.sample(withReplacement = false, fraction, seed) over the rows of one
 * partition, as CSV and JSON schema inference sample lines with samplingRatio (seed 1, partition
 * 0: seed 1 + 0): a BernoulliCellSampler over XORShiftRandom seeded seed + partition, one draw per
 * row in order. fraction > 0.99 keeps every row without drawing (Spark's JsonUtils/CSVUtils). */
typedef struct cs_tv_sampler {
    uint64_t state;
    double fraction;
} cs_tv_sampler;
void cs_tv_sampler_init(cs_tv_sampler *s, double fraction, int64_t seed);
bool cs_tv_sampler_keep(cs_tv_sampler *s);
/* The generator's next double in [0, 1): java.util.Random.nextDouble over XORShiftRandom's
 * next(bits) (SamplingUtils.reservoirSampleAndCount's draw, sqlexec/range_partitioner.c). */
double cs_tv_sampler_next_double(cs_tv_sampler *s);
/* Spark's new XORShiftRandom(seed).nextInt(bound) (bound > 0): the first int a generator seeded
 * as the sampler above draws, as java.util.Random.nextInt(bound) over its next(31). The start
 * of a round-robin exchange (sqlexec/exchange_codec.c). */
int32_t cs_tv_xorshift_first_int(int64_t seed, int32_t bound);
/* The samplingRatio option's text: as Spark, any number above 0 (above 0.99: every row); false
 * otherwise. */
bool cs_tv_parse_sampling_ratio(const char *s, double *out);

/* The lines of a text split of a file held in buf[0..n), by the rule of text files (Hadoop's
 * LineRecordReader, exec/text_reader.c): a split not starting at 0 begins after the first '\n' at
 * or after its start, and takes every line whose first byte is at or before its end. Sets
 * [*lo, *hi); a record belongs to the split where its line starts. */
void cs_line_split_range(const char *buf, size_t n, size_t start, size_t length, size_t *lo,
                         size_t *hi);

#endif
