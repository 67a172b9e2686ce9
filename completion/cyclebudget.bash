# cyclebudget(1) completion for bash.
#
# The options come from the binary being completed ("CMD --help", read at
# completion time), and so do the probe, variant and event names ("list
# probes", "list variants", "list events"): whatever a build adds, its
# completion offers, with nothing here to keep in step.  Only the fixed
# choices of a few values (formats, modes, budgets) are spelled out below.
#
# Installed as $(datadir)/bash-completion/completions/cyclebudget, where
# bash-completion loads it on the first TAB after "cyclebudget".

_cyclebudget_commands="run report list budget calibrate compare history ack bisect-check merge race check ab kernel bpf"

# The binary the user typed (./cyclebudget completes from the build in
# this directory), with a leading ~ expanded as the shell would.
_cyclebudget_bin()
{
    local b=${COMP_WORDS[0]}
    [[ $b == "~"* ]] && b=$HOME${b#"~"}
    printf '%s\n' "$b"
}

# "OPTION ARG" per line (ARG 1 when it takes a value, else 0), parsed from
# "BIN CMD --help": the option that starts an indented line of the option
# list, and every option of the usage lines ("usage: ..." and the
# "       cyclebudget ..." lines under it), which also give the value names
# that the option list leaves out (budget's --frame BYTES).
_cyclebudget_help_opts()
{
    local bin=$1 cmd=$2 line rest re_lead re_any
    re_lead='^[[:space:]]+(-[[:alnum:]], )?(--[[:alnum:]][-[:alnum:]]*)( [A-Z])?'
    re_any='(^|[][ |])(--?[[:alnum:]][-[:alnum:]]*)( [A-Z])?(.*)$'
    "$bin" "$cmd" --help 2>/dev/null | while IFS= read -r line; do
        if [[ $line == usage:* || $line =~ ^[[:space:]]+cyclebudget[[:space:]] ]]; then
            rest=${line#*cyclebudget }
            while [[ $rest =~ $re_any ]]; do
                printf '%s %d\n' "${BASH_REMATCH[2]}" "$([[ -n ${BASH_REMATCH[3]} ]] && echo 1 || echo 0)"
                rest=${BASH_REMATCH[4]}
            done
        elif [[ $line =~ $re_lead ]]; then
            local a=0
            [[ -n ${BASH_REMATCH[3]} ]] && a=1
            [[ -n ${BASH_REMATCH[1]} ]] && printf '%s %d\n' "${BASH_REMATCH[1]%, }" $a
            printf '%s %d\n' "${BASH_REMATCH[2]}" $a
        fi
    done
}

# COMPREPLY from compgen ARGS, one reply a line: a file name may hold
# spaces or glob characters.
_cyclebudget_reply()
{
    mapfile -t COMPREPLY < <(compgen "$@")
}

# Complete the last item of a comma-separated list: "csum,co" offers
# "csum,copy" and "csum,csum_copy".
_cyclebudget_list()
{
    local cur=$1 words=$2 pre=""
    [[ $cur == *,* ]] && pre=${cur%,*},
    _cyclebudget_reply -P "$pre" -W "$words" -- "${cur##*,}"
}

_cyclebudget_probes()
{
    "$(_cyclebudget_bin)" list probes 2>/dev/null | awk '/^[^[:space:]]/ { print $1 }'
}

# Variant names, of the families given with -p/--probes earlier on the line
# when there are some, else of every family.
_cyclebudget_variants()
{
    local i fams=""
    for ((i = 2; i < ${#COMP_WORDS[@]} - 1; i++)); do
        case ${COMP_WORDS[i]} in
        -p | --probes) fams=${COMP_WORDS[i + 1]} ;;
        --probes=*) fams=${COMP_WORDS[i]#--probes=} ;;
        esac
    done
    "$(_cyclebudget_bin)" list variants 2>/dev/null | awk -v fams=",$fams," '
        /^[^[:space:]].*:$/ { fam = substr($1, 1, length($1) - 1); next }
        /^[[:space:]]/ && (fams == ",," || index(fams, "," fam ",")) { print $1 }' | sort -u
}

_cyclebudget_events()
{
    # The alias column of "list events": the lines that start with a name,
    # after the header.
    "$(_cyclebudget_bin)" list events 2>/dev/null | awk '
        /^alias[[:space:]]/ { on = 1; next }
        on && /^[^[:space:]]/ { print $1 }'
}

_cyclebudget_files()
{
    compopt -o filenames 2>/dev/null
    if [[ $1 == -d ]]; then
        _cyclebudget_reply -d -- "$2"
    else
        _cyclebudget_reply -f -- "$1"
    fi
}

# The completion of a value: 0 when OPT's value was completed (COMPREPLY
# set, possibly empty), 1 when OPT takes no value known here.
_cyclebudget_value()
{
    local cmd=$1 opt=$2 cur=$3
    case $opt in
    -p | --probes) _cyclebudget_list "$cur" "$(_cyclebudget_probes)" ;;
    -V | --variants | --versus) _cyclebudget_list "$cur" "$(_cyclebudget_variants)" ;;
    -e | --events) _cyclebudget_list "$cur" "$(_cyclebudget_events)" ;;
    -m | --mode)
        if [[ $cmd == race ]]; then
            _cyclebudget_reply -W "warm cold" -- "$cur"
        else
            _cyclebudget_reply -W "warm cold warm,cold" -- "$cur"
        fi
        ;;
    --format)
        case $cmd in
        report) _cyclebudget_reply -W "text html csv json gbench" -- "$cur" ;;
        compare) _cyclebudget_reply -W "text markdown json junit" -- "$cur" ;;
        ab) _cyclebudget_reply -W "text markdown json" -- "$cur" ;;
        history) _cyclebudget_reply -W "text html" -- "$cur" ;;
        *) COMPREPLY=() ;;
        esac
        ;;
    --emit) _cyclebudget_reply -W "json c-header" -- "$cur" ;;
    --correction) _cyclebudget_reply -W "holm bh" -- "$cur" ;;
    --budget)
        if [[ $cmd == run ]]; then
            _cyclebudget_reply -W "10G 40G 100G" -- "$cur"
        else
            _cyclebudget_reply -W "10G 25G 40G 100G 400G" -- "$cur"
        fi
        ;;
    --cpu)
        local n
        n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
        _cyclebudget_reply -W "$(seq 0 $((n - 1)))" -- "$cur"
        ;;
    --db | -o | --output | --plugin | --into | --junit | --against-plugin) _cyclebudget_files "$cur" ;;
    --repo) _cyclebudget_files -d "$cur" ;;
    *) return 1 ;;
    esac
    return 0
}

_cyclebudget()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd=${COMP_WORDS[1]-}
    COMPREPLY=()
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

    if ((COMP_CWORD == 1)); then
        if [[ $cur == -* ]]; then
            _cyclebudget_reply -W "--help --version" -- "$cur"
        else
            _cyclebudget_reply -W "$_cyclebudget_commands help version" -- "$cur"
        fi
        return 0
    fi
    [[ " $_cyclebudget_commands " == *" $cmd "* ]] || return 0

    # --opt=value: bash splits at '=', so the option is a word or two back.
    if [[ $cur == = ]]; then
        cur=""
        _cyclebudget_value "$cmd" "$prev" "$cur"
        return 0
    fi
    if [[ $prev == = ]] && ((COMP_CWORD > 2)); then
        _cyclebudget_value "$cmd" "${COMP_WORDS[COMP_CWORD - 2]}" "$cur"
        return 0
    fi
    # ... or one word, where COMP_WORDBREAKS has no '='.
    if [[ $cur == --*=* ]]; then
        local opt=${cur%%=*} i
        _cyclebudget_value "$cmd" "$opt" "${cur#*=}" || COMPREPLY=()
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=$opt=${COMPREPLY[i]}
        done
        return 0
    fi

    local opts
    # One line per option, taking a value if any line said so.
    opts=$(_cyclebudget_help_opts "$(_cyclebudget_bin)" "$cmd" |
        awk '{ if (!($1 in a) || $2 > a[$1]) a[$1] = $2 } END { for (o in a) print o, a[o] }' | sort)

    # The value of an option that takes one: its choices, or nothing to
    # offer (a number, a revision, free text).
    if [[ $prev == -* ]]; then
        _cyclebudget_value "$cmd" "$prev" "$cur" && return 0
        grep -q -- "^$prev 1\$" <<<"$opts" && return 0
    fi

    if [[ $cur == -* ]]; then
        _cyclebudget_reply -W "$(awk '{ print $1 }' <<<"$opts") --help" -- "$cur"
        return 0
    fi
    case $cmd in
    list) ((COMP_CWORD == 2)) && _cyclebudget_reply -W "probes variants events" -- "$cur" ;;
    report) _cyclebudget_reply -W "latest" -- "$cur" ;;
    budget) _cyclebudget_reply -W "1G 10G 25G 40G 100G 400G" -- "$cur" ;;
    ab) _cyclebudget_files "$cur" ;;   # BASE.so HEAD.so
    kernel | bpf) ((COMP_CWORD == 2)) && _cyclebudget_reply -W "run" -- "$cur" ;;
    run | race | calibrate | bisect-check)
        # No arguments but options: offer them.
        _cyclebudget_reply -W "$(awk '$1 ~ /^--/ { print $1 }' <<<"$opts")" -- "$cur"
        ;;
    esac
    return 0
}
complete -F _cyclebudget cyclebudget
