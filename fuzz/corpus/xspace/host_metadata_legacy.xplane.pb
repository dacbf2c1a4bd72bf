
·/host:metadata"7d3djit_f0(100)*"2

jit_f0main

comp.0((d"Ce?ejit_f1(101)*.2*
(
jit_f1main

comp.0(

comp.1((e*	HLO Proto*
program_id"host0