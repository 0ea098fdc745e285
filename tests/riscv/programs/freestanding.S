# A freestanding program (-nostdlib): _start, a write and exit through ecalls.
    .globl _start
_start:
    li a0, 1
    la a1, message
    li a2, 13
    li a7, 64          # write
    ecall
    li a0, 7
    li a7, 93          # exit
    ecall
    .data
message: .ascii "freestanding\n"
