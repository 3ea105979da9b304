# SPDX-License-Identifier: MIT
"""pmureport: a pmutest KTAP log turned into evidence.

One module per concern, each importing only those above it:
  ktap         the model (Run, Suite, Test) and a result line's grammar
  expand       the compact form (kernel/compact.h) written out in full
  verdict      the verdict the results call for; the closing lines checked
  reader       parse() and read_log(): a log's text into a Run
  machine      the machine, platform and capability record a run names
  failures     a test's failed checks, known deviation, exceptions
  fingerprint  what a failure is, for expectations files
  selection    which tests the run selected
  expectations an expectations file: load, compare, baseline
  diff         one run against another, test by test
  htmlreport   the self-contained HTML page (one run, or a matrix)
  junit        JUnit XML
  jsonreport   the JSON report
  kcidb        a KernelCI (KCIDB v5) submission
  replay       explain and bugreport (pmusim --replay)
  cli          the command: `python3 -m pmureport SUBCOMMAND ...`
"""
