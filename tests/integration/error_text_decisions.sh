#!/usr/bin/env bash
# error_text_decisions.sh — no behaviour depends on the text of an error message (issue 22 item 3).
# Errors carry codes for decisions: a task's status (TASK_KILLED, plan_missing), a cs_error's code,
# kind and http_status (the Kubernetes Status reason). Messages are for people and may change.
#
# The check reads every C file under src/ (comments left out) and fails on a string comparison
# (strcmp, strncmp, strcasecmp, strncasecmp, strstr, strcasestr, memcmp, memmem) that
#   1. compares with a literal that reads as prose ("task cancelled", "does not exist"): two words
#      separated by a space — protocol tokens (a pod phase, a Status reason, a header name) have none;
#   2. searches or compares an error message: an argument named msg, errmsg, err_msg, error,
#      message, reason, why, fail_msg or loss_reason (alone or as a member: err.msg, r->error);
#   3. compares with a macro defined as such prose (#define CS_TASK_CANCELLED "task cancelled: ...").
# A comparison that reads a message without deciding anything (copying part of it into another
# message) is listed in ALLOW below with its reason. Before looking at the tree, the checker proves
# it bites on the comparisons issue 22 found, and lets protocol parsing through.
# $1 = build directory (unused: the check reads the sources).
# ctest-labels: no-asan (it reads the sources, not the build: the sanitizer pass would repeat it)
set -euo pipefail
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: error_text_decisions: $*" >&2; exit 1; }

# path<TAB>text of the call<TAB>why it decides nothing
ALLOW=$(printf '%s\t%s\t%s\n' \
    "src/kube/kube_errors.c" 'strstr(msg, "User \"")' \
    "copies the user's name out of the API server's 403 text into cspark's own message" \
    "src/submit/submit_k8s.c" 'strstr(err->msg, path)' \
    "rewrites the request path in a dry run's message to read as cs_kube_create's" \
    "src/formats/parquet/parquet_writer.c" 'strncmp(err->msg, w->uri, strlen(w->uri))' \
    "puts the file's name in front of a message that does not start with it yet" \
    "src/sched/barrier_stage.c" 'strncmp(error, py, sizeof py - 1)' \
    "shows a Python worker's failure under Spark's PythonException class name in a barrier stage's failure text")

# scan FILE... : prints "file:line: call" for every comparison that reads a message
scan() {
    ALLOW="$ALLOW" perl -e '
        use strict; use warnings;
        my (%allow, @files) = ();
        for (split /\n/, $ENV{ALLOW}) { my ($p, $c) = split /\t/; $allow{"$p\t$c"} = 1 }
        my $str = qr/"(?:\\.|[^"\\\n])*"/;
        my $prose = qr/[A-Za-z][ ][A-Za-z]/;
        my (%text, %macros);
        for my $f (@ARGV) {
            open my $fh, "<", $f or die "$f: $!";
            local $/; my $s = <$fh>; close $fh;
            # comments become blanks (line numbers kept); strings and characters stay
            $s =~ s{($str)|(\x27(?:\\.|[^\x27\\\n])*\x27)|(/\*.*?\*/)|(//[^\n]*)}
                   {defined $1 || defined $2 ? $& : ($& =~ s/[^\n]/ /gr)}gse;
            $text{$f} = $s;
            while ($s =~ /^\s*#\s*define\s+(\w+)\s+($str)/mg) {
                my ($name, $lit) = ($1, $2);
                $macros{$name} = 1 if $lit =~ $prose;
            }
        }
        my $macro_re = %macros ? join("|", map { quotemeta } sort keys %macros) : "(?!)";
        my $carrier = qr/(?<![\w])(?:msg|errmsg|err_msg|error|message|reason|why|fail_msg|loss_reason)\b(?!\s*\()/;
        my $bad = 0;
        for my $f (@ARGV) {
            my $s = $text{$f};
            while ($s =~ /\b(strn?(?:case)?cmp|strstr|strcasestr|memcmp|memmem)\s*(\((?:[^()"]++|$str|(?2))*\))/g) {
                my ($call, $args, $at) = ("$1$2", $2, $-[0]);
                my $line = 1 + (substr($s, 0, $at) =~ tr/\n//);
                my @lits = $args =~ /$str/g;
                (my $bare = $args) =~ s/$str/""/g;
                my $why = (grep { $_ =~ $prose } @lits) ? "compares with message text"
                        : $bare =~ $carrier ? "reads an error message"
                        : $bare =~ /\b(?:$macro_re)\b/ ? "compares with a message macro"
                        : "";
                next unless $why;
                (my $rel = $f) =~ s{^.*?(?=src/)}{};
                (my $flat = $call) =~ s/\s+/ /g;
                next if $allow{"$rel\t$flat"};
                print "$rel:$line: $flat ($why)\n";
                $bad++;
            }
        }
    ' "$@"
}

# the checker bites: the comparisons issue 22 found, in a scratch tree
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src/x"
cat >"$T/src/x/bad.c" <<'EOF'
#define CS_TASK_CANCELLED "task cancelled: its job has ended"
void f(void) {
    if (r->status == TASK_FAILED && r->error && strncmp(r->error, "task cancelled", 14) == 0) return;
    if (strcmp(r->error, CS_TASK_CANCELLED) == 0) return;
    bool fatal = err.code == CS_EAUTH || strstr(err.msg, "forbidden") ||
                 strstr(err.msg, "does not exist") || strstr(e2.msg,
                                                             "pod creation limit");
    if (strncmp(error, CS_TASK_CANCELLED, strlen(CS_TASK_CANCELLED)) == 0) return;
    if (ev->reason && strncmp(ev->reason, "TaskKilled", 10) == 0) return;
}
EOF
cat >"$T/src/x/good.c" <<'EOF'
/* strstr(err.msg, "does not exist") in a comment is no comparison */
void g(void) {
    if (phase && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0)) return;
    if (kind && strcmp(kind, "namespaces") == 0) return;
    if (strcmp(status_reason, "Forbidden") == 0) return;
    if (strncmp(master, "k8s://", 6) == 0) return;
    if (strcmp(type, "ADDED") == 0) return;
    if (strncmp(auth, "Bearer ", 7) == 0) return;
    log_error("not a comparison: does not exist");
}
EOF
got=$(scan "$T/src/x/bad.c" "$T/src/x/good.c" | sed 's/ (.*//')
want="src/x/bad.c:3: strncmp(r->error, \"task cancelled\", 14)
src/x/bad.c:4: strcmp(r->error, CS_TASK_CANCELLED)
src/x/bad.c:5: strstr(err.msg, \"forbidden\")
src/x/bad.c:6: strstr(err.msg, \"does not exist\")
src/x/bad.c:6: strstr(e2.msg, \"pod creation limit\")
src/x/bad.c:8: strncmp(error, CS_TASK_CANCELLED, strlen(CS_TASK_CANCELLED))
src/x/bad.c:9: strncmp(ev->reason, \"TaskKilled\", 10)"
[ "$got" = "$want" ] || fail "the checker does not bite as it should; it reported:
$got
instead of:
$want"

# the tree
mapfile -t files < <(cd "$SRC" && find src -name '*.[ch]' | sort)
[ "${#files[@]}" -gt 100 ] || fail "found only ${#files[@]} C files under $SRC/src"
out=$(cd "$SRC" && scan "${files[@]}")
if [ -n "$out" ]; then
    echo "$out" >&2
    fail "behaviour depends on the text of an error message above: decide on a code (a task's
status, cs_error's code/kind/http_status), or, if the comparison decides nothing, add it to ALLOW
with the reason"
fi
echo "PASS: error_text_decisions (${#files[@]} files)"
