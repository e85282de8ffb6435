# SPDX-License-Identifier: GPL-2.0
# Interrupts per expired callout against the mean interval T, measured, as
# the paper's Appendix A predicts, and as twheel's rules give (the model
# in bench-report.py); one colour per scheme and geometry.
# Run as: gnuplot -e "dir='bench/results'" scripts/interrupts.gnuplot
set terminal pngcairo size 900,600 noenhanced
set output dir.'/interrupts.png'
set logscale xy
set xlabel 'mean interval T, ticks'
set ylabel 'twheel interrupts per expired callout'
set key left top
set grid
set key autotitle columnhead
files = system('ls '.dir.'/interrupts-*.dat')
plot for [i=1:words(files)] word(files, i) using 1:2 \
	with points pt 7 ps 1.5 lc i, \
     for [i=1:words(files)] word(files, i) using 1:3 with lines lw 2 lc i, \
     for [i=1:words(files)] word(files, i) using 1:4 \
	with linespoints dt 2 pt 6 lc i
