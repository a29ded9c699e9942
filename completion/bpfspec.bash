# bash completion for bpfspec(1).
#
# Completes the commands, each command's options, bundled spec names (from
# `bpfspec list`) and *.yaml/*.yml files for SPEC, *.json files for diff,
# pids after -p, files after --output and --binary, output formats after
# -o (folded for run and report: one-liners sample no stacks), and the
# command and its files after `--`.
# Needs only bash (the bash-completion package is not required).
# Install as $(PREFIX)/share/bash-completion/completions/bpfspec, or source it.

# _bpfspec_reply — reads words, one a line, into COMPREPLY.
_bpfspec_reply() {
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		[ -n "$line" ] && COMPREPLY+=("$line")
	done
}

# The bundled specs' names, from the bpfspec being completed.
_bpfspec_specs() {
	local bin=${COMP_WORDS[0]}
	# A path typed as ~/... reaches us unexpanded.
	[ "${bin%%/*}" = "~" ] && bin=$HOME/${bin#*/}
	if ! type -P "$bin" >/dev/null 2>&1 && [ ! -x "$bin" ]; then
		bin=bpfspec
	fi
	# Parameter lines under a spec are indented: only names start a line.
	"$bin" list 2>/dev/null | while IFS= read -r line; do
		case $line in
		' '* | '') ;;
		*) printf '%s\n' "${line%% *}" ;;
		esac
	done
}

# The parameters of spec $1, as NAME= (from `bpfspec check`).
_bpfspec_params() {
	local bin=${COMP_WORDS[0]} line p
	[ "${bin%%/*}" = "~" ] && bin=$HOME/${bin#*/}
	if ! type -P "$bin" >/dev/null 2>&1 && [ ! -x "$bin" ]; then
		bin=bpfspec
	fi
	line=$("$bin" check "$1" 2>/dev/null) || return 0
	case $line in *"; "*) ;; *) return 0 ;; esac
	line=${line#*; }
	line=${line%)}
	local IFS=' '
	for p in $line; do
		p=${p%,}
		printf '%s=\n' "${p%%=*}"
	done
}

# Files (and directories, to walk into) whose name ends in one of the
# given suffixes.
_bpfspec_files() {
	local cur=$1 suffix
	shift
	compgen -d -- "$cur"
	for suffix in "$@"; do
		compgen -f -X "!*$suffix" -- "$cur"
	done
}

_bpfspec_filenames() {
	# Quote names and add '/' to directories; only possible from a real
	# completion (compopt fails when the function is called directly).
	compopt -o filenames 2>/dev/null || true
}

_bpfspec() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" i w n_args=0 dashdash=-1 spec=""
	local opts_run="-p --pid -c --command -d --duration -i --interval -n --count --cumulative
		-o --output-format --output --trace-threshold --fail-if --debug-dir -v --verbose -h --help --"
	local opts

	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# "--output=FILE": bash splits it at '=' (COMP_WORDBREAKS).
	if [ "$cur" = "=" ]; then
		cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# The command, the positional arguments before the cursor, and "--".
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$cmd" ]; then
			case $w in
			-*) ;;
			*) cmd=$w ;;
			esac
			continue
		fi
		if [ "$w" = "--" ]; then
			dashdash=$i
			break
		fi
		case $w in
		-p | --pid | -c | --command | -d | --duration | -i | --interval | -n | --count | \
			-o | --output-format | --output | --fail-if | --binary | --set | --debug-dir | \
			-t | --target | -l | --listen | --web-config | --bpftrace)
			i=$((i + 1)) ;;	# the option's argument
		=) ;;
		-*) ;;
		*)
			# "--output=x" arrives as "--output" "=" "x"
			if [ "${COMP_WORDS[i - 1]}" != "=" ]; then
				[ "$n_args" -eq 0 ] && spec=$w
				n_args=$((n_args + 1))
			fi ;;
		esac
	done

	if [ -z "$cmd" ]; then
		if [ "$COMP_CWORD" -eq 1 ] || [ "${cur#-}" = "$cur" ]; then
			_bpfspec_reply < <(compgen -W "run latency syscalls count gen check diff report list symbols serve -h --help -V --version" -- "$cur")
		fi
		return 0
	fi

	# After "--": the command to run, then its arguments (files).
	if [ "$dashdash" -ge 0 ]; then
		if [ "$COMP_CWORD" -eq $((dashdash + 1)) ]; then
			_bpfspec_reply < <(compgen -c -- "$cur" | sort -u)
		else
			_bpfspec_filenames
			_bpfspec_reply < <(compgen -f -- "$cur")
		fi
		return 0
	fi

	# The argument of the option before the cursor.
	case $prev in
	-p | --pid)
		_bpfspec_reply < <(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")
		return 0 ;;
	-o | --output-format)
		if [ "$cmd" = diff ] || [ "$cmd" = symbols ]; then
			_bpfspec_reply < <(compgen -W "text json" -- "$cur")
		elif [ "$cmd" = report ]; then
			_bpfspec_reply < <(compgen -W "text json prom html folded" -- "$cur")
		elif [ "$cmd" = run ]; then
			_bpfspec_reply < <(compgen -W "text json prom html trace folded" -- "$cur")
		else
			# one-liners sample no stacks: folded would only be refused
			_bpfspec_reply < <(compgen -W "text json prom html trace" -- "$cur")
		fi
		return 0 ;;
	--output | --binary | --web-config | --bpftrace)
		_bpfspec_filenames
		_bpfspec_reply < <(compgen -f -- "$cur")
		return 0 ;;
	--set)
		# NAME= of the spec's parameters; the value is free text.
		if [ -n "$spec" ]; then
			compopt -o nospace 2>/dev/null || true
			_bpfspec_reply < <(compgen -W "$(_bpfspec_params "$spec")" -- "$cur")
		fi
		return 0 ;;
	--debug-dir | --host-run)
		_bpfspec_filenames
		_bpfspec_reply < <(compgen -d -- "$cur")
		return 0 ;;
	-c | --command | -d | --duration | -i | --interval | -n | --count | --fail-if | --bpftrace-version | \
		-t | --target | -l | --listen)
		return 0 ;;	# free text: nothing to offer
	esac

	case $cmd in
	run) opts="$opts_run --set" ;;
	latency | syscalls | count) opts="$opts_run --emit-spec --emit-program --bpftrace-version" ;;
	gen) opts="-p --pid --binary --set --debug-dir --bpftrace-version -d --duration -v --verbose -h --help" ;;
	symbols) opts="-p --pid --binary --debug-dir -o --output-format -v --verbose -h --help" ;;
	diff) opts="-o --output-format --output --fail-if -v --verbose -h --help" ;;
	report) opts="-o --output-format --output -v --verbose -h --help" ;;
	check) opts="--set -h --help" ;;
	list) opts="-h --help" ;;
	serve) opts="-t --target -l --listen -i --interval --web-config --pid-label --set --bpftrace --host-run -v --verbose -h --help" ;;
	*) return 0 ;;
	esac

	if [ "${cur#-}" != "$cur" ]; then
		_bpfspec_reply < <(compgen -W "$opts" -- "$cur")
		return 0
	fi

	# Positional arguments; once a command has all it takes, its options.
	case $cmd in
	run | gen)
		if [ "$n_args" -eq 0 ]; then
			_bpfspec_filenames
			_bpfspec_reply < <({
				compgen -W "$(_bpfspec_specs)" -- "$cur"
				_bpfspec_files "$cur" .yaml .yml
			} | sort -u)
			return 0
		fi ;;
	check | serve)
		_bpfspec_filenames
		_bpfspec_reply < <({
			compgen -W "$(_bpfspec_specs)" -- "$cur"
			_bpfspec_files "$cur" .yaml .yml
		} | sort -u)
		return 0 ;;
	diff)
		if [ "$n_args" -lt 2 ]; then
			_bpfspec_filenames
			_bpfspec_reply < <(_bpfspec_files "$cur" .json | sort -u)
			return 0
		fi ;;
	report)
		if [ "$n_args" -lt 1 ]; then
			_bpfspec_filenames
			_bpfspec_reply < <({
				_bpfspec_files "$cur" .json
				_bpfspec_files "$cur" .ndjson
			} | sort -u)
			return 0
		fi ;;
	latency | syscalls | count)
		# FUNC..., NAME,... and PROBE...: free text.
		[ -n "$cur" ] && return 0 ;;
	esac
	[ -z "$cur" ] && _bpfspec_reply < <(compgen -W "$opts" -- "")
	return 0
}

complete -F _bpfspec bpfspec
