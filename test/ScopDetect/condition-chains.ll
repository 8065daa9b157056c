; Block conditions stay small along chains of ifs. A block after an `if` runs exactly
; when the branch before it runs, so it takes that block's condition; rebuilding it as
; "(c and e) or (c and not e)" doubled it at every `if`: 40 of them in one loop (what
; inlined csmith code looks like) cost 2^40 and gigabytes before the fix. The bound on
; memory fails the test if that comes back (the time limit only guards against a hang).
; RUN: timeout 300 sh -c 'ulimit -v 1048576 && exec "$0" "$@"' \
; RUN:   %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output %s 2>&1 | %FileCheck %s
;
; Where a block does not run with its dominator (an `if` that may skip to the latch,
; a `continue`), its condition still grows; past MAX_CONDITION_COMPARISONS the nest is
; rejected, with a remark that names the bound.
; RUN: %opt %loadpolyrust -passes=polyrust -pass-remarks-missed=polyrust -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=REMARK

; CHECK-LABEL: polyrust-detect: function 'chain_of_ifs'
; CHECK: region chain_of_ifs:header: 1 loop nest, 1 loop, depth 1, 40 statements
; CHECK-LABEL: polyrust-detect: function 'skips_to_latch'
; CHECK: rejected loop %header:
; CHECK-NEXT: complex-condition: branch conditions too complex to model: block %if9 runs under a condition of 1533 comparisons, more than the 1000 detection accepts
; REMARK: remark: <unknown>:0:0: loop not modelled: branch conditions too complex to model: block %if9 runs under a condition of 1533 comparisons, more than the 1000 detection accepts (the bound is MAX_CONDITION_COMPARISONS in passes/src/detect/control.rs; raise it and rebuild to model this nest)

; for (i = 0; i < n; i++) { if (m > 0) A[i] = 0; if (m > 1) A[i] = 1; ... if (m > 39) ... }
define void @chain_of_ifs(ptr noalias %A, i64 %n, i64 %m) {
entry:
  br label %header
header:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  br label %if0
if0:
  %c0 = icmp sgt i64 %m, 0
  br i1 %c0, label %then0, label %if1
then0:
  store double 0.0, ptr %p
  br label %if1
if1:
  %c1 = icmp sgt i64 %m, 1
  br i1 %c1, label %then1, label %if2
then1:
  store double 1.0, ptr %p
  br label %if2
if2:
  %c2 = icmp sgt i64 %m, 2
  br i1 %c2, label %then2, label %if3
then2:
  store double 2.0, ptr %p
  br label %if3
if3:
  %c3 = icmp sgt i64 %m, 3
  br i1 %c3, label %then3, label %if4
then3:
  store double 3.0, ptr %p
  br label %if4
if4:
  %c4 = icmp sgt i64 %m, 4
  br i1 %c4, label %then4, label %if5
then4:
  store double 4.0, ptr %p
  br label %if5
if5:
  %c5 = icmp sgt i64 %m, 5
  br i1 %c5, label %then5, label %if6
then5:
  store double 5.0, ptr %p
  br label %if6
if6:
  %c6 = icmp sgt i64 %m, 6
  br i1 %c6, label %then6, label %if7
then6:
  store double 6.0, ptr %p
  br label %if7
if7:
  %c7 = icmp sgt i64 %m, 7
  br i1 %c7, label %then7, label %if8
then7:
  store double 7.0, ptr %p
  br label %if8
if8:
  %c8 = icmp sgt i64 %m, 8
  br i1 %c8, label %then8, label %if9
then8:
  store double 8.0, ptr %p
  br label %if9
if9:
  %c9 = icmp sgt i64 %m, 9
  br i1 %c9, label %then9, label %if10
then9:
  store double 9.0, ptr %p
  br label %if10
if10:
  %c10 = icmp sgt i64 %m, 10
  br i1 %c10, label %then10, label %if11
then10:
  store double 10.0, ptr %p
  br label %if11
if11:
  %c11 = icmp sgt i64 %m, 11
  br i1 %c11, label %then11, label %if12
then11:
  store double 11.0, ptr %p
  br label %if12
if12:
  %c12 = icmp sgt i64 %m, 12
  br i1 %c12, label %then12, label %if13
then12:
  store double 12.0, ptr %p
  br label %if13
if13:
  %c13 = icmp sgt i64 %m, 13
  br i1 %c13, label %then13, label %if14
then13:
  store double 13.0, ptr %p
  br label %if14
if14:
  %c14 = icmp sgt i64 %m, 14
  br i1 %c14, label %then14, label %if15
then14:
  store double 14.0, ptr %p
  br label %if15
if15:
  %c15 = icmp sgt i64 %m, 15
  br i1 %c15, label %then15, label %if16
then15:
  store double 15.0, ptr %p
  br label %if16
if16:
  %c16 = icmp sgt i64 %m, 16
  br i1 %c16, label %then16, label %if17
then16:
  store double 16.0, ptr %p
  br label %if17
if17:
  %c17 = icmp sgt i64 %m, 17
  br i1 %c17, label %then17, label %if18
then17:
  store double 17.0, ptr %p
  br label %if18
if18:
  %c18 = icmp sgt i64 %m, 18
  br i1 %c18, label %then18, label %if19
then18:
  store double 18.0, ptr %p
  br label %if19
if19:
  %c19 = icmp sgt i64 %m, 19
  br i1 %c19, label %then19, label %if20
then19:
  store double 19.0, ptr %p
  br label %if20
if20:
  %c20 = icmp sgt i64 %m, 20
  br i1 %c20, label %then20, label %if21
then20:
  store double 20.0, ptr %p
  br label %if21
if21:
  %c21 = icmp sgt i64 %m, 21
  br i1 %c21, label %then21, label %if22
then21:
  store double 21.0, ptr %p
  br label %if22
if22:
  %c22 = icmp sgt i64 %m, 22
  br i1 %c22, label %then22, label %if23
then22:
  store double 22.0, ptr %p
  br label %if23
if23:
  %c23 = icmp sgt i64 %m, 23
  br i1 %c23, label %then23, label %if24
then23:
  store double 23.0, ptr %p
  br label %if24
if24:
  %c24 = icmp sgt i64 %m, 24
  br i1 %c24, label %then24, label %if25
then24:
  store double 24.0, ptr %p
  br label %if25
if25:
  %c25 = icmp sgt i64 %m, 25
  br i1 %c25, label %then25, label %if26
then25:
  store double 25.0, ptr %p
  br label %if26
if26:
  %c26 = icmp sgt i64 %m, 26
  br i1 %c26, label %then26, label %if27
then26:
  store double 26.0, ptr %p
  br label %if27
if27:
  %c27 = icmp sgt i64 %m, 27
  br i1 %c27, label %then27, label %if28
then27:
  store double 27.0, ptr %p
  br label %if28
if28:
  %c28 = icmp sgt i64 %m, 28
  br i1 %c28, label %then28, label %if29
then28:
  store double 28.0, ptr %p
  br label %if29
if29:
  %c29 = icmp sgt i64 %m, 29
  br i1 %c29, label %then29, label %if30
then29:
  store double 29.0, ptr %p
  br label %if30
if30:
  %c30 = icmp sgt i64 %m, 30
  br i1 %c30, label %then30, label %if31
then30:
  store double 30.0, ptr %p
  br label %if31
if31:
  %c31 = icmp sgt i64 %m, 31
  br i1 %c31, label %then31, label %if32
then31:
  store double 31.0, ptr %p
  br label %if32
if32:
  %c32 = icmp sgt i64 %m, 32
  br i1 %c32, label %then32, label %if33
then32:
  store double 32.0, ptr %p
  br label %if33
if33:
  %c33 = icmp sgt i64 %m, 33
  br i1 %c33, label %then33, label %if34
then33:
  store double 33.0, ptr %p
  br label %if34
if34:
  %c34 = icmp sgt i64 %m, 34
  br i1 %c34, label %then34, label %if35
then34:
  store double 34.0, ptr %p
  br label %if35
if35:
  %c35 = icmp sgt i64 %m, 35
  br i1 %c35, label %then35, label %if36
then35:
  store double 35.0, ptr %p
  br label %if36
if36:
  %c36 = icmp sgt i64 %m, 36
  br i1 %c36, label %then36, label %if37
then36:
  store double 36.0, ptr %p
  br label %if37
if37:
  %c37 = icmp sgt i64 %m, 37
  br i1 %c37, label %then37, label %if38
then37:
  store double 37.0, ptr %p
  br label %if38
if38:
  %c38 = icmp sgt i64 %m, 38
  br i1 %c38, label %then38, label %if39
then38:
  store double 38.0, ptr %p
  br label %if39
if39:
  %c39 = icmp sgt i64 %m, 39
  br i1 %c39, label %then39, label %latch
then39:
  store double 39.0, ptr %p
  br label %latch
latch:
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %header, label %exit
exit:
  ret void
}

; for (i = 0; i < n; i++) { if (m > 0) { A[i] = 0; if (n > 0) continue; } if (m > 1) ... }
define void @skips_to_latch(ptr noalias %A, i64 %n, i64 %m) {
entry:
  br label %header
header:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  br label %if0
if0:
  %c0 = icmp sgt i64 %m, 0
  br i1 %c0, label %then0, label %if1
then0:
  store double 0.0, ptr %p
  %s0 = icmp sgt i64 %n, 0
  br i1 %s0, label %latch, label %if1
if1:
  %c1 = icmp sgt i64 %m, 1
  br i1 %c1, label %then1, label %if2
then1:
  store double 1.0, ptr %p
  %s1 = icmp sgt i64 %n, 1
  br i1 %s1, label %latch, label %if2
if2:
  %c2 = icmp sgt i64 %m, 2
  br i1 %c2, label %then2, label %if3
then2:
  store double 2.0, ptr %p
  %s2 = icmp sgt i64 %n, 2
  br i1 %s2, label %latch, label %if3
if3:
  %c3 = icmp sgt i64 %m, 3
  br i1 %c3, label %then3, label %if4
then3:
  store double 3.0, ptr %p
  %s3 = icmp sgt i64 %n, 3
  br i1 %s3, label %latch, label %if4
if4:
  %c4 = icmp sgt i64 %m, 4
  br i1 %c4, label %then4, label %if5
then4:
  store double 4.0, ptr %p
  %s4 = icmp sgt i64 %n, 4
  br i1 %s4, label %latch, label %if5
if5:
  %c5 = icmp sgt i64 %m, 5
  br i1 %c5, label %then5, label %if6
then5:
  store double 5.0, ptr %p
  %s5 = icmp sgt i64 %n, 5
  br i1 %s5, label %latch, label %if6
if6:
  %c6 = icmp sgt i64 %m, 6
  br i1 %c6, label %then6, label %if7
then6:
  store double 6.0, ptr %p
  %s6 = icmp sgt i64 %n, 6
  br i1 %s6, label %latch, label %if7
if7:
  %c7 = icmp sgt i64 %m, 7
  br i1 %c7, label %then7, label %if8
then7:
  store double 7.0, ptr %p
  %s7 = icmp sgt i64 %n, 7
  br i1 %s7, label %latch, label %if8
if8:
  %c8 = icmp sgt i64 %m, 8
  br i1 %c8, label %then8, label %if9
then8:
  store double 8.0, ptr %p
  %s8 = icmp sgt i64 %n, 8
  br i1 %s8, label %latch, label %if9
if9:
  %c9 = icmp sgt i64 %m, 9
  br i1 %c9, label %then9, label %if10
then9:
  store double 9.0, ptr %p
  %s9 = icmp sgt i64 %n, 9
  br i1 %s9, label %latch, label %if10
if10:
  %c10 = icmp sgt i64 %m, 10
  br i1 %c10, label %then10, label %if11
then10:
  store double 10.0, ptr %p
  %s10 = icmp sgt i64 %n, 10
  br i1 %s10, label %latch, label %if11
if11:
  %c11 = icmp sgt i64 %m, 11
  br i1 %c11, label %then11, label %latch
then11:
  store double 11.0, ptr %p
  %s11 = icmp sgt i64 %n, 11
  br i1 %s11, label %latch, label %latch
latch:
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %header, label %exit
exit:
  ret void
}

