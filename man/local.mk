# man/local.mk — the manual pages: dyn(1), the command, and dyn(5), the
# language.  Hand-written roff (man(7) macros); their examples are run by
# tests/shell/man_examples.sh.
dist_man_MANS = man/dyn.1 man/dyn.5
