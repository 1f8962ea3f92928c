#!/bin/sh
# plot_options.sh — plot options: a title, axis labels given or taken from
# the quantities' names, logarithmic axes (decade ticks), several series
# with a legend.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
dir=$OUT/plot_options
mkdir -p "$dir"
cat > "$dir/p.dyn" <<'EOF2'
model m {
  dof u
  mass [1]
  damping [0.5]
  stiffness [4]
  init u = 1
}
let r = run m with newmark from 0 to 10 step 0.01
plot r.kinetic, r.stored to "log.svg", logy = true, title = "energies <J>", ylabel = "energy"
plot r.u' vs r.u to "phase.svg"
EOF2
"$DYN" -o "$dir" "$dir/p.dyn" || { echo "plot_options: dyn failed"; exit 1; }
f=$dir/log.svg
grep -q "energies &lt;J&gt;" "$f" || { echo "plot_options: no escaped title"; exit 1; }
grep -q ">energy<" "$f" || { echo "plot_options: no y label"; exit 1; }
grep -q ">1e-6<" "$f" || { echo "plot_options: no decade tick on the log axis"; exit 1; }
grep -q ">r.kinetic<" "$f" && grep -q ">r.stored<" "$f" || { echo "plot_options: no legend"; exit 1; }
grep -q ">r.u<" "$dir/phase.svg" && grep -q ">r.u&apos;<" "$dir/phase.svg" ||
	{ echo "plot_options: phase portrait axes not labelled by the quantities"; exit 1; }
echo "plot_options: ok"
