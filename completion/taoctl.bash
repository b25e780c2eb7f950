# bash completion for taoctl(8)
_taoctl()
{
	local cur prev words cword cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="status cgroups top-tasks actions act policy explain abusers reload report metrics zones"

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--socket|--config|-c|-s) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	case $prev in
	--socket|--config|-o|--output|--db|-c)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--sort)
		COMPREPLY=($(compgen -W "path anon thp coverage allocs splits alloc_rate split_rate split_ratio" -- "$cur")); return ;;
	--format)
		COMPREPLY=($(compgen -W "table json csv html" -- "$cur")); return ;;
	--since)
		COMPREPLY=($(compgen -W "1h 24h 7d" -- "$cur")); return ;;
	--limit|--pid|--bytes|--cgroup|--glob|--nosplit|--nomerge)
		return ;;
	esac

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands --socket --config --json --help --version" -- "$cur"))
		return
	fi
	case $cmd in
	cgroups) COMPREPLY=($(compgen -W "--sort --glob --sizes --all --json" -- "$cur")) ;;
	top-tasks|actions) COMPREPLY=($(compgen -W "--limit --cgroup --json" -- "$cur")) ;;
	act)
		if [[ $prev == act ]]; then
			# The words of taoctl's own table of action kinds, as its usage lists them.
			local kinds
			kinds=$("${COMP_WORDS[0]}" act 2>&1 | sed -n 's/^  ACTION: //p' | tr -d ,)
			COMPREPLY=($(compgen -W "$kinds" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "--cgroup --pid --bytes --dry-run --sizes --json" -- "$cur"))
		fi ;;
	zones) COMPREPLY=($(compgen -W "--apply --dry-run --nosplit --nomerge --json" -- "$cur")) ;;
	abusers) COMPREPLY=($(compgen -W "--all --json" -- "$cur")) ;;
	report) COMPREPLY=($(compgen -W "--since --cgroup --format --output --db --config --sizes --costs --all --json" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -W "--json" -- "$cur")) ;;
	esac
}
complete -F _taoctl taoctl
