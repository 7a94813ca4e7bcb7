for m in "$@"; do
  for i in 1 2 3 4 5; do node imp2.mjs $m; done | sort -k2 -n | sed -n 3p | awk -v m="$m" '{printf "%-50s import %4d ms  rss +%d MB heap %d MB\n", substr(m, length(m)-49), $2, $6, $9}'
done
