# bash completion for npukit(1): subcommands, options, targets, settings, memories, demos.
#
# Nothing here is a copy of the command's tables: every list is asked of the npukit being
# completed at the moment of completion, so the completion follows the installed version:
#   npukit info --list commands|targets       subcommands, targets
#   npukit info --list settings -t TARGET     presets and KEY= of a target's settings
#   npukit info --list memories -t TARGET     memories for --load and --dump
#   npukit CMD --help                         the options of CMD (lines starting with
#                                             "  -x, --name ARG" or "      --name")
#   npukit demo --help                        the demo names (lines under "demos:")
# Installed as share/bash-completion/completions/npukit; it needs only bash (no
# bash-completion functions), and works with or without the bash-completion package.

# The words of the command line up to the cursor, split at blanks only: bash also splits at
# ':' and '=' (COMP_WORDBREAKS), which would cut "-t rvnpu:isa_rev=rev2" into pieces.
_npukit_words() {
    local line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
    _npk_w=()
    read -r -a _npk_w <<<"$line"
    # a blank before the cursor starts a new, empty word
    if [[ -z $line || $line == *[[:space:]] ]]; then
        _npk_w+=("")
    fi
}

# Options of a subcommand from its --help: "-x --name" for flags, and the value-taking
# ones in _npk_valopt (" --name ARG " entries), optional values in _npk_optval.
_npukit_options() {
    local npk=$1 cmd=$2 line spec
    _npk_opts=() _npk_valopt=" " _npk_optval=" "
    while IFS= read -r line; do
        [[ $line =~ ^\ +(-[A-Za-z0-9],\ )?(--[a-z][a-z0-9-]*)((\[=|=|\ )([^ ]+))?(\ \ |$) ]] ||
            continue
        local short=${BASH_REMATCH[1]%, } long=${BASH_REMATCH[2]}
        local sep=${BASH_REMATCH[4]} arg=${BASH_REMATCH[5]}
        [[ -n $short ]] && _npk_opts+=("$short")
        _npk_opts+=("$long")
        if [[ $sep == "[=" ]]; then
            _npk_optval+="$long ${arg%]} "
        elif [[ -n $sep ]]; then
            _npk_valopt+="$long $arg "
            [[ -n $short ]] && _npk_valopt+="$short $arg "
        fi
    done < <("$npk" "$cmd" --help 2>/dev/null)
}

# The argument spelling of a value-taking option ("NAME[:CONFIG]", "bin|hex"), or nothing.
_npukit_argspec() {
    local rest=${2#* $1 }
    [[ $rest == "$2" ]] && return 1
    printf '%s' "${rest%% *}"
}

# COMPREPLY from candidate words (full words, as _npk_w has them); bash replaces only the
# part after its last word break, so that much of the typed word is cut off each candidate.
_npukit_reply() {
    local cur=$1 c bashcur=${COMP_WORDS[COMP_CWORD]:-}
    shift
    local cut=${cur%"$bashcur"}
    [[ $cur == *"$bashcur" ]] || cut=""
    COMPREPLY=()
    for c in "$@"; do
        [[ $c == "$cur"* ]] && COMPREPLY+=("${c#"$cut"}")
    done
}

_npukit_nospace() {
    compopt -o nospace 2>/dev/null
    return 0
}

_npukit_files() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen "${2:--f}" -- "$1"))
}

# Settings "a=1,b" of TARGET, typed after BASE ("rvnpu:" for -t, "" for --config): complete
# the item after the last ','.
_npukit_settings() {
    local npk=$1 target=$2 cur=$3 base=$4 list head item s
    list=${cur#"$base"}
    if [[ $list == *,* ]]; then head=$base${list%,*}, item=${list##*,}; else head=$base item=$list; fi
    [[ $item == *=* ]] && return 0 # a value: free-form
    local cands=()
    while IFS= read -r s; do
        [[ -n $s ]] && cands+=("$head$s")
    done < <("$npk" info --list settings -t "$target" 2>/dev/null)
    _npukit_reply "$cur" "${cands[@]}"
    _npukit_nospace
}

_npukit() {
    local npk=${COMP_WORDS[0]:-npukit}
    command -v "$npk" >/dev/null 2>&1 || npk=npukit
    local _npk_w _npk_opts _npk_valopt _npk_optval
    _npukit_words
    local n=${#_npk_w[@]}
    local cur=${_npk_w[n - 1]} prev=${_npk_w[n - 2]:-}
    COMPREPLY=()

    if ((n <= 2)); then
        if [[ $cur == -* ]]; then
            _npukit_reply "$cur" --help --version -h -V
        else
            _npukit_reply "$cur" $("$npk" info --list commands 2>/dev/null) help
        fi
        return 0
    fi
    local cmd=${_npk_w[1]}
    if [[ $cmd == help ]]; then
        ((n == 3)) && _npukit_reply "$cur" $("$npk" info --list commands 2>/dev/null)
        return 0
    fi
    _npukit_options "$npk" "$cmd"
    ((${#_npk_opts[@]})) || return 0 # not a command

    # the target named so far on the line (-t NAME, -tNAME, --target NAME, --target=NAME)
    local target="" i w
    for ((i = 2; i < n - 1; i++)); do
        w=${_npk_w[i]}
        case $w in
        -t | --target) target=${_npk_w[i + 1]} ;;
        --target=*) target=${w#--target=} ;;
        -t?*) target=${w#-t} ;;
        esac
    done
    target=${target%%:*}

    # the value of an option: "--opt VALUE" or "--opt=VALUE"
    local opt="" val=$cur
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*} val=${cur#*=}
        [[ $_npk_valopt == *" $opt "* || $_npk_optval == *" $opt "* ]] || opt=""
    elif [[ $_npk_valopt == *" $prev "* && $prev == -* ]]; then
        opt=$prev
    fi
    if [[ -n $opt ]]; then
        local pre=${cur%"$val"} spec
        spec=$(_npukit_argspec "$opt" "$_npk_valopt") || spec=$(_npukit_argspec "$opt" "$_npk_optval")
        case $opt in
        -t | --target)
            if [[ $val == *:* ]]; then
                _npukit_settings "$npk" "${val%%:*}" "$cur" "$pre${val%%:*}:"
            else
                local t cands=()
                for t in $("$npk" info --list targets 2>/dev/null); do cands+=("$pre$t"); done
                _npukit_reply "$cur" "${cands[@]}"
            fi
            ;;
        --config)
            [[ -n $target ]] && _npukit_settings "$npk" "$target" "$cur" "$pre"
            ;;
        --load | --dump)
            if [[ $val != *:* ]]; then
                local s cands=()
                [[ -n $target ]] || return 0
                for s in $("$npk" info --list memories -t "$target" 2>/dev/null); do
                    cands+=("$pre$s:")
                done
                _npukit_reply "$cur" "${cands[@]}"
                _npukit_nospace
            elif [[ $opt == --load && $val == *:*:* ]]; then
                _npukit_files "${val#*:*:}"
            fi
            ;;
        --write)
            [[ $val == *:* ]] && _npukit_files "${val#*:}"
            ;;
        *)
            if [[ $spec == *"|"* ]]; then # alternatives: bin|hex, text|json, FILE|-
                local a alts cands=()
                IFS='|' read -r -a alts <<<"$spec"
                for a in "${alts[@]}"; do
                    [[ $a == [A-Z]* ]] || cands+=("$pre$a")
                done
                _npukit_reply "$cur" "${cands[@]}"
            fi
            if [[ $spec == DIR* || $spec == FILE* ]]; then
                local alts=("${COMPREPLY[@]}")
                _npukit_files "$val" "$([[ $spec == DIR* ]] && echo -d || echo -f)"
                COMPREPLY+=("${alts[@]}")
            fi
            ;;
        esac
        return 0
    fi

    if [[ $cur == -* ]]; then
        _npukit_reply "$cur" "${_npk_opts[@]}"
        return 0
    fi
    case $cmd in
    demo)
        local line demos=() in=0
        while IFS= read -r line; do
            if [[ $line == demos: ]]; then in=1
            elif [[ -z $line ]]; then in=0
            elif ((in)); then read -r line _ <<<"$line"; demos+=("$line")
            fi
        done < <("$npk" demo --help 2>/dev/null)
        _npukit_reply "$cur" "${demos[@]}"
        ;;
    info)
        _npukit_reply "$cur" $("$npk" info --list targets 2>/dev/null)
        ;;
    *)
        _npukit_files "$cur"
        ;;
    esac
    return 0
}

complete -F _npukit npukit
