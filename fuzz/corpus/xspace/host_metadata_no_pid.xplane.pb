
Ñ/host:metadata"D@jit_f0(100)"jit_f0(100)*"2

jit_f0main

comp.0((d"PLjit_f1(101)"jit_f1(101)*.2*
(
jit_f1main

comp.0(

comp.1((e*	Hlo Proto*
program_id
…/host:metadata"JFjit_f0(100)"jit_f0(100)*"2

jit_f0main

comp.0((d*d*	Hlo Proto*
program_id"host0