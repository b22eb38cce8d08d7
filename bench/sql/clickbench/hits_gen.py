"""hits_gen.py — writes a ClickBench-shaped `hits` table as Parquet: the 105 columns of
ClickBench's `hits` (names and Spark types as in its create.sql), filled with generated values
of a similar shape (NOT the real Yandex.Metrica data set): Zipf-skewed URLs, referers, search
phrases, users, counters and client IPs, most string columns empty, event times over July 2013.
Called by bench/sql/clickbench/data.sh under the python3 of scripts/install-benchtools.sh
(pyarrow and numpy).

    hits_gen.py --rows N --out DIR/hits.parquet [--seed S] [--row-group R]

Deterministic: the same --rows, --seed and --row-group give the same rows (each row group draws
from its own generator seeded by (seed, group index)). The values the ClickBench queries filter
on exist: CounterID 62 is the most frequent counter, UserID 435090932899640449 a user with a few
hundred hits per 10 M rows, RefererHash 3594120000172545465 the hash of the most frequent
referer and URLHash 2868770270353813622 that of the most frequent URL. Writes OUT.tmp and
renames it, so an interrupted run leaves no file that looks complete. Memory: one row group at a time.
"""
import argparse
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# The ClickBench `hits` columns in order, with their Spark types (ClickBench's create.sql).
COLUMNS = """
WatchID long; JavaEnable short; Title string; GoodEvent short; EventTime timestamp;
EventDate date; CounterID int; ClientIP int; RegionID int; UserID long; CounterClass short;
OS short; UserAgent short; URL string; Referer string; IsRefresh short; RefererCategoryID short;
RefererRegionID int; URLCategoryID short; URLRegionID int; ResolutionWidth short;
ResolutionHeight short; ResolutionDepth short; FlashMajor short; FlashMinor short;
FlashMinor2 string; NetMajor short; NetMinor short; UserAgentMajor short; UserAgentMinor string;
CookieEnable short; JavascriptEnable short; IsMobile short; MobilePhone short;
MobilePhoneModel string; Params string; IPNetworkID int; TraficSourceID short;
SearchEngineID short; SearchPhrase string; AdvEngineID short; IsArtifical short;
WindowClientWidth short; WindowClientHeight short; ClientTimeZone short;
ClientEventTime timestamp; SilverlightVersion1 short; SilverlightVersion2 short;
SilverlightVersion3 int; SilverlightVersion4 short; PageCharset string; CodeVersion int;
IsLink short; IsDownload short; IsNotBounce short; FUniqID long; OriginalURL string; HID int;
IsOldCounter short; IsEvent short; IsParameter short; DontCountHits short; WithHash short;
HitColor string; LocalEventTime timestamp; Age short; Sex short; Income short; Interests short;
Robotness short; RemoteIP int; WindowName int; OpenerName int; HistoryLength short;
BrowserLanguage string; BrowserCountry string; SocialNetwork string; SocialAction string;
HTTPError short; SendTiming int; DNSTiming int; ConnectTiming int; ResponseStartTiming int;
ResponseEndTiming int; FetchTiming int; SocialSourceNetworkID short; SocialSourcePage string;
ParamPrice long; ParamOrderID string; ParamCurrency string; ParamCurrencyID short;
OpenstatServiceName string; OpenstatCampaignID string; OpenstatAdID string;
OpenstatSourceID string; UTMSource string; UTMMedium string; UTMCampaign string;
UTMContent string; UTMTerm string; FromTag string; HasGCLID short; RefererHash long;
URLHash long; CLID int
"""
ARROW = {"long": pa.int64(), "int": pa.int32(), "short": pa.int16(), "string": pa.string(),
         "timestamp": pa.timestamp("us", tz="UTC"), "date": pa.date32()}
SCHEMA = pa.schema([pa.field(n, ARROW[t], nullable=False) for n, t in
                    (c.split() for c in COLUMNS.replace("\n", " ").split(";"))])

MONTH_START = 1372636800  # 2013-07-01 00:00:00 UTC
MONTH_SECONDS = 31 * 86400
WORDS = ("news weather video music games sport auto cars photo maps mail market travel home "
         "kids movies books health food recipes jobs realty finance bank credit loans tickets "
         "hotels flights phone laptop camera shoes dress watch garden tools school forum blog "
         "wiki search download free online best cheap new used review price buy sale").split()
DOMAINS_BASE = ("yandex google mail rambler vk odnoklassniki avito auto livejournal wikipedia "
                "youtube kinopoisk lenta rbc gazeta drom irr hh sberbank ozon").split()
TLDS = ["ru", "com", "net", "org", "ua", "by", "kz"]
PHONE_MODELS = ["iPad", "iPhone", "GT-I9300", "GT-N7100", "HTC One", "Lumia 920", "Nexus 4",
                "Xperia Z", "GT-I9500", "One X"]


class Dictionary:
    """Distinct values with Zipf-like frequencies: rank k (0-based) drawn with weight 1/(k+1)^s."""

    def __init__(self, values, s):
        self.values = pa.array(values, type=pa.string()) if isinstance(values[0], str) \
            else np.asarray(values)
        w = 1.0 / np.arange(1, len(values) + 1) ** s
        self.cdf = np.cumsum(w) / w.sum()

    def ranks(self, rng, n):
        return np.minimum(np.searchsorted(self.cdf, rng.random(n)), len(self.cdf) - 1)

    def take(self, ranks):
        if isinstance(self.values, pa.Array):
            return self.values.take(pa.array(ranks))
        return self.values[ranks]


def words(rng, n, lo, hi):
    k = rng.integers(lo, hi + 1, n)
    w = rng.integers(0, len(WORDS), (n, hi))
    return [" ".join(WORDS[j] for j in w[i, :k[i]]) for i in range(n)]


def build_dictionaries(seed):
    rng = np.random.default_rng([seed, 1 << 20])
    domains = ["%s%s.%s" % (DOMAINS_BASE[i % len(DOMAINS_BASE)], "" if i < 20 else str(i),
                            TLDS[i % len(TLDS)]) for i in range(2000)]
    dom_pick = Dictionary(list(range(len(domains))), 1.1)
    n_urls = 300_000
    url_dom = dom_pick.take(dom_pick.ranks(rng, n_urls))
    url_words = words(rng, n_urls, 1, 4)
    url_ids = rng.integers(1, 10_000_000, n_urls)
    urls = ["%s://%s%s/%s?id=%d" % ("https" if i % 3 == 0 else "http",
                                   "www." if i % 2 == 0 else "", domains[d],
                                   w.replace(" ", "/"), u)
            for i, (d, w, u) in enumerate(zip(url_dom, url_words, url_ids))]
    titles = ["%s - %s" % (w.title(), domains[d].split(".")[0].title())
              for d, w in zip(url_dom, words(rng, n_urls, 2, 6))]
    # one title in fifty names Google, with a URL that is not on a .google. host
    for i in range(7, n_urls, 50):
        titles[i] = "Google " + titles[i]
    ref_dom = dom_pick.take(dom_pick.ranks(rng, 100_000))
    referers = ["http://%s%s/%s" % ("www." if i % 4 == 0 else "", domains[d],
                                    w.replace(" ", "/"))
                for i, (d, w) in enumerate(zip(ref_dom, words(rng, 100_000, 0, 3)))]
    phrases = words(rng, 60_000, 1, 4)
    hashes = lambda n: rng.integers(-(1 << 62), 1 << 62, n, dtype=np.int64)  # noqa: E731
    url_hash, ref_hash = hashes(n_urls), hashes(len(referers))
    url_hash[0], ref_hash[0] = 2868770270353813622, 3594120000172545465
    users = hashes(2_000_000)
    users[3000] = 435090932899640449
    counters = rng.permutation(np.arange(1, 200_000, dtype=np.int32))[:20_000]
    counters[counters == 62] = 199_999
    counters[0] = 62
    ips = rng.integers(-(1 << 31), (1 << 31) - 1, 1_000_000, dtype=np.int32)
    return {
        "url": Dictionary(urls, 1.05), "title": pa.array(titles, type=pa.string()),
        "url_hash": url_hash, "referer": Dictionary(referers, 1.0), "ref_hash": ref_hash,
        "phrase": Dictionary(phrases, 1.0), "user": Dictionary(users, 0.9),
        "counter": Dictionary(counters, 1.2), "ip": Dictionary(ips, 0.8),
        "model": Dictionary(PHONE_MODELS, 1.0),
    }


def small(rng, n, values, weights=None):
    """n draws from a short list of values (int16), optionally weighted."""
    p = None if weights is None else np.asarray(weights, float) / sum(weights)
    return np.asarray(values, dtype=np.int16)[rng.choice(len(values), n, p=p)]


def mostly_empty(rng, n, share, choices):
    """A string column: empty except for share of the rows, drawn from choices."""
    idx = np.where(rng.random(n) < share, rng.integers(1, len(choices) + 1, n), 0)
    return pa.array([""] + list(choices), type=pa.string()).take(pa.array(idx))


def row_group(d, seed, index, n):
    rng = np.random.default_rng([seed, index])
    c = {}
    url_rank = d["url"].ranks(rng, n)
    c["URL"] = d["url"].take(url_rank)
    c["URLHash"] = d["url_hash"][url_rank]
    c["Title"] = pc.if_else(pa.array(rng.random(n) < 0.1), "", d["title"].take(pa.array(url_rank)))
    has_ref = rng.random(n) < 0.6
    ref_rank = d["referer"].ranks(rng, n)
    c["Referer"] = pc.if_else(pa.array(has_ref), d["referer"].take(ref_rank), "")
    c["RefererHash"] = np.where(has_ref, d["ref_hash"][ref_rank], 0).astype(np.int64)
    has_phrase = rng.random(n) < 0.25
    c["SearchPhrase"] = pc.if_else(pa.array(has_phrase),
                                           d["phrase"].take(d["phrase"].ranks(rng, n)), "")
    c["SearchEngineID"] = np.where(has_phrase, small(rng, n, [2, 3, 4, 5, 7], [60, 25, 8, 5, 2]),
                                   0).astype(np.int16)
    c["UserID"] = d["user"].take(d["user"].ranks(rng, n)).astype(np.int64)
    c["CounterID"] = d["counter"].take(d["counter"].ranks(rng, n)).astype(np.int32)
    c["ClientIP"] = d["ip"].take(d["ip"].ranks(rng, n)).astype(np.int32)
    c["WatchID"] = rng.integers(1, 1 << 62, n, dtype=np.int64)
    secs = MONTH_START + rng.integers(0, MONTH_SECONDS, n)
    # a day's rhythm: fewer hits at night (a share moved to the afternoon)
    night = (secs % 86400 < 6 * 3600) & (rng.random(n) < 0.5)
    secs = np.where(night, secs + 12 * 3600, secs)
    secs = np.minimum(secs, MONTH_START + MONTH_SECONDS - 1)
    c["EventTime"] = pa.array(secs * 1_000_000, type=pa.int64()).cast(ARROW["timestamp"])
    c["EventDate"] = pa.array((secs // 86400).astype(np.int32), type=pa.int32()).cast(pa.date32())
    c["ClientEventTime"] = pa.array((secs + rng.integers(-300, 300, n)) * 1_000_000,
                                    type=pa.int64()).cast(ARROW["timestamp"])
    c["LocalEventTime"] = pa.array((secs + 4 * 3600) * 1_000_000,
                                   type=pa.int64()).cast(ARROW["timestamp"])
    c["AdvEngineID"] = np.where(rng.random(n) < 0.03, small(rng, n, [2, 3, 12, 13, 27, 30]),
                                0).astype(np.int16)
    widths = [1024, 1280, 1366, 1440, 1600, 1680, 1920, 320, 360, 768, 2560, 0]
    heights = [768, 1024, 768, 900, 900, 1050, 1080, 480, 640, 1024, 1440, 0]
    res = rng.choice(len(widths), n, p=np.array([12, 15, 20, 8, 5, 6, 18, 4, 3, 5, 2, 2]) / 100)
    c["ResolutionWidth"] = np.asarray(widths, np.int16)[res]
    c["ResolutionHeight"] = np.asarray(heights, np.int16)[res]
    c["WindowClientWidth"] = np.maximum(c["ResolutionWidth"] - small(rng, n, [0, 17, 40, 300]),
                                        0).astype(np.int16)
    c["WindowClientHeight"] = np.maximum(c["ResolutionHeight"] - small(rng, n, [0, 120, 200]),
                                         0).astype(np.int16)
    mobile = rng.random(n) < 0.15
    c["IsMobile"] = mobile.astype(np.int16)
    c["MobilePhone"] = np.where(mobile, small(rng, n, [1, 5, 6, 7, 47]), 0).astype(np.int16)
    c["MobilePhoneModel"] = pc.if_else(pa.array(mobile & (rng.random(n) < 0.7)),
                                               d["model"].take(d["model"].ranks(rng, n)), "")
    c["RegionID"] = (np.floor(rng.pareto(1.2, n)) % 10000).astype(np.int32) + 1
    c["TraficSourceID"] = small(rng, n, [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8],
                                [3, 40, 15, 10, 8, 5, 4, 10, 3, 2])
    c["IsRefresh"] = (rng.random(n) < 0.1).astype(np.int16)
    c["DontCountHits"] = (rng.random(n) < 0.05).astype(np.int16)
    c["IsLink"] = (rng.random(n) < 0.06).astype(np.int16)
    c["IsDownload"] = (rng.random(n) < 0.02).astype(np.int16)
    c["IsNotBounce"] = (rng.random(n) < 0.3).astype(np.int16)
    c["OriginalURL"] = pc.if_else(pa.array(rng.random(n) < 0.05), c["URL"], "")
    c["Params"] = mostly_empty(rng, n, 0.05, ["a=1", "b=2&c=3", "utm=on", "ref=mail"])
    c["FlashMinor2"] = mostly_empty(rng, n, 0.2, ["0", "1", "2", "3"])
    c["UserAgentMinor"] = mostly_empty(rng, n, 0.8, ["0", "1", "2", "5", "D", "F"])
    c["PageCharset"] = mostly_empty(rng, n, 0.3, ["utf-8", "windows-1251", "koi8-r"])
    c["HitColor"] = mostly_empty(rng, n, 1.0, ["D", "E", "F"])
    c["BrowserLanguage"] = mostly_empty(rng, n, 0.9, ["ru", "en", "uk", "de", "tr"])
    c["BrowserCountry"] = mostly_empty(rng, n, 0.9, ["ru", "ua", "by", "kz", "tr", "de"])
    c["SocialNetwork"] = mostly_empty(rng, n, 0.01, ["vk", "ok", "fb", "tw"])
    c["SocialAction"] = mostly_empty(rng, n, 0.005, ["like", "share", "comment"])
    c["SocialSourcePage"] = mostly_empty(rng, n, 0.005, ["/feed", "/wall", "/group"])
    c["ParamOrderID"] = mostly_empty(rng, n, 0.002, ["%d" % i for i in range(1000, 1100)])
    c["ParamCurrency"] = mostly_empty(rng, n, 0.002, ["RUB", "USD", "EUR"])
    for name, share in (("OpenstatServiceName", 0.01), ("OpenstatCampaignID", 0.01),
                        ("OpenstatAdID", 0.01), ("OpenstatSourceID", 0.01),
                        ("UTMSource", 0.02), ("UTMMedium", 0.02), ("UTMCampaign", 0.02),
                        ("UTMContent", 0.01), ("UTMTerm", 0.01), ("FromTag", 0.01)):
        c[name] = mostly_empty(rng, n, share, ["%s%d" % (name[:4].lower(), i) for i in range(40)])
    # every other column: small integers of a plausible range
    for f in SCHEMA:
        if f.name in c:
            continue
        if f.type == pa.int16():
            c[f.name] = rng.integers(0, 8 if f.name.startswith("Is") or f.name.endswith("Enable")
                                     else 100, n).astype(np.int16)
        elif f.type == pa.int32():
            c[f.name] = np.where(rng.random(n) < 0.5, 0, rng.integers(0, 100_000, n)) \
                .astype(np.int32)
        elif f.type == pa.int64():
            c[f.name] = np.where(rng.random(n) < 0.9, 0, rng.integers(0, 1 << 40, n)) \
                .astype(np.int64)
        else:
            raise SystemExit("hits_gen: no generator for column %s (%s)" % (f.name, f.type))
    arrays = [c[f.name] if isinstance(c[f.name], (pa.Array, pa.ChunkedArray))
              else pa.array(c[f.name], type=f.type) for f in SCHEMA]
    arrays = [a.cast(f.type) if a.type != f.type else a for a, f in zip(arrays, SCHEMA)]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=20130701)
    p.add_argument("--row-group", type=int, default=1_000_000)
    a = p.parse_args()
    if a.rows <= 0 or a.row_group <= 0:
        print("hits_gen: --rows and --row-group must be positive", file=sys.stderr)
        return 2
    d = build_dictionaries(a.seed)
    tmp = a.out + ".tmp"
    with pq.ParquetWriter(tmp, SCHEMA, compression="snappy") as w:
        done, index = 0, 0
        while done < a.rows:
            n = min(a.row_group, a.rows - done)
            w.write_table(row_group(d, a.seed, index, n), row_group_size=n)
            done += n
            index += 1
            print("hits_gen: %d of %d rows" % (done, a.rows), file=sys.stderr, flush=True)
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
