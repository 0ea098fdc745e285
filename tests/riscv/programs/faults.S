# Programs that fault, chosen by the first argument's first letter: i (illegal instruction),
# w (wild load), s (unsupported system call), l (a loop that never ends), v (a vector instruction
# before any vsetvl), r (a reserved VFUNARY1 encoding: vs1 = 7).
    .globl _start
_start:
    ld t0, 16(sp)      # argv[1]
    lbu t0, 0(t0)
    li t1, 'i'
    beq t0, t1, illegal
    li t1, 'w'
    beq t0, t1, wild
    li t1, 's'
    beq t0, t1, syscall
    li t1, 'l'
    beq t0, t1, forever
    li t1, 'v'
    beq t0, t1, novtype
    li t1, 'r'
    beq t0, t1, estimate
    li a0, 9
    li a7, 93
    ecall
    .globl illegal
illegal:
    .word 0xffffffff
    .globl wild
wild:
    li t2, 0x10
    ld t3, 0(t2)
    .globl syscall
syscall:
    li a7, 999
    ecall
    .globl forever
forever:
    addi t4, t4, 1
    j forever
    .globl novtype
novtype:
    .word 0x030c0457   # vadd.vv v8, v16, v24 (the build's -march has no V)
    .globl estimate
estimate:
    .word 0x0d0072d7   # vsetvli t0, zero, e32, m1, ta, ma
    .word 0x4f039457   # VFUNARY1 with vs1 = 7 (vfrec7.v v8, v16 has vs1 = 5): reserved
