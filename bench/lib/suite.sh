# bench/lib/suite.sh: the command line every bench/<name>/suite shares
# (the protocol of bench/README.md), sourced by the suite after it defines
#   build <outdir>      build every program into <outdir>
#   list_procs <procs>  print the configurations at one processor count
# and then calling `suite_main "$@"`. Gives the suite:
#   $here, $repo, $out (the absolute <outdir>), $name (the suite's name),
#   warn MESSAGE              a warning on stderr, prefixed by the suite
#   emit BENCH VARIANT RUNTIME PROCS UNIT BETTER COMMAND
#                             one TAB-separated configuration line
#   scaled COUNT              COUNT x BENCH_SECONDS, at least 1: the work of
#                             a program that runs a fixed amount of it
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
name=$(basename "$here")

warn() { echo "bench/$name/suite: warning: $*" >&2; }
usage() { echo "usage: $0 build <outdir> | list <outdir> <procs>..." >&2; exit 2; }

emit() { local IFS=$'\t'; printf '%s\n' "$*"; }

scaled() { awk -v n="$1" -v s="${BENCH_SECONDS:-1}" 'BEGIN { v = int(n * s); print (v < 1) ? 1 : v }'; }

suite_main() {
    [ $# -ge 2 ] || usage
    local cmd=$1 p
    [ "$cmd" = build ] && mkdir -p "$2"
    [ -d "$2" ] || { echo "bench/$name/suite: no directory $2 (run build first)" >&2; exit 2; }
    out=$(cd "$2" && pwd)
    shift 2
    case $cmd in
        build) [ $# -eq 0 ] || usage; build "$out" ;;
        list)
            [ $# -ge 1 ] || usage
            for p in "$@"; do
                [[ $p =~ ^[1-9][0-9]*$ ]] || { echo "bench/$name/suite: bad processor count '$p'" >&2; exit 2; }
                list_procs "$p"
            done ;;
        *) usage ;;
    esac
}
