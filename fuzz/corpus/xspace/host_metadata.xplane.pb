
Á/host:metadata"JFjit_f0(100)"jit_f0(100)*"2

jit_f0main

comp.0((d*d"VRjit_f1(101)"jit_f1(101)*.2*
(
jit_f1main

comp.0(

comp.1((e*e"b^jit_f2(102)"jit_f2(102)*:26
4
jit_f2main

comp.0(

comp.1(

comp.2((f*f*	Hlo Proto*
program_id"host0