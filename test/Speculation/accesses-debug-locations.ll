; Every call the instrumentation of accesses adds has a debug location in a function
; with debug information: that of the instruction it stands in front of, else line 0
; of the function. Without one, a call to a function the module defines with debug
; information (here a stand-in for the runtime, as a test built in one file has) fails
; the verifier.
;
; RUN: %opt %loadpolyrust -passes=polyrust,verify -polyrust-profile-generate \
; RUN:   -polyrust-instrument=accesses -S %s | %FileCheck %s
;
; The module's own definitions of the runtime keep their attributes (none): what the
; runtime does is said only on declarations.
; CHECK: define i32 @polyrust_rt_nest_begin(ptr %nest) !dbg
; CHECK: define void @polyrust_rt_access(ptr %nest, i32 %site, ptr %iv, i64 %address) !dbg
; CHECK: define i32 @polyrust_rt_nest_next(ptr %nest) !dbg
; CHECK: define void @polyrust_rt_nest_plain(ptr %nest) !dbg
; CHECK-LABEL: define void @clear(
; CHECK:         call i32 @polyrust_rt_nest_begin(ptr nonnull @{{.*}}), !dbg ![[ENTRY:[0-9]+]]
; CHECK:         call void @polyrust_rt_access({{.*}}, i64 0), !dbg ![[HEADER:[0-9]+]]
; CHECK:         call void @polyrust_rt_access({{.*}}, i64 %{{[0-9]+}}), !dbg ![[ZERO:[0-9]+]]
; CHECK-NEXT:    store double 0.000000e+00, ptr %a, align 8{{$}}
; The plain copy's count is where the loop's header is, the question on the back edge
; where the nest starts.
; CHECK:         call void @polyrust_rt_nest_plain(ptr nonnull @{{.*}}), !dbg ![[HEADER]]
; CHECK:         call i32 @polyrust_rt_nest_next(ptr nonnull @{{.*}}), !dbg ![[ENTRY]]
; CHECK-DAG: ![[ENTRY]] = !DILocation(line: 3,
; CHECK-DAG: ![[HEADER]] = !DILocation(line: 4,
; CHECK-DAG: ![[ZERO]] = !DILocation(line: 0, scope: ![[SCOPE:[0-9]+]])
; CHECK-DAG: ![[SCOPE]] = distinct !DISubprogram(name: "clear"

define i32 @polyrust_rt_nest_begin(ptr %nest) !dbg !10 {
  ret i32 1, !dbg !11
}

define void @polyrust_rt_access(ptr %nest, i32 %site, ptr %iv, i64 %address) !dbg !12 {
  ret void, !dbg !13
}

define i32 @polyrust_rt_nest_next(ptr %nest) !dbg !14 {
  ret i32 0, !dbg !15
}

define void @polyrust_rt_nest_plain(ptr %nest) !dbg !16 {
  ret void, !dbg !17
}

define void @clear(ptr %p, i64 %n) !dbg !5 {
entry:
  br label %loop, !dbg !7

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %a = getelementptr inbounds double, ptr %p, i64 %i, !dbg !8
  store double 0.0, ptr %a, align 8
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit, !dbg !8

exit:
  ret void, !dbg !9
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "clear.c", directory: "/tmp")
!2 = !DISubroutineType(types: !{})
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "clear", scope: !1, file: !1, line: 2, type: !2, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!7 = !DILocation(line: 3, column: 3, scope: !5)
!8 = !DILocation(line: 4, column: 5, scope: !5)
!9 = !DILocation(line: 5, column: 1, scope: !5)
!10 = distinct !DISubprogram(name: "polyrust_rt_nest_begin", scope: !1, file: !1, line: 20, type: !2, scopeLine: 20, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!11 = !DILocation(line: 20, column: 1, scope: !10)
!12 = distinct !DISubprogram(name: "polyrust_rt_access", scope: !1, file: !1, line: 21, type: !2, scopeLine: 21, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!13 = !DILocation(line: 21, column: 1, scope: !12)
!14 = distinct !DISubprogram(name: "polyrust_rt_nest_next", scope: !1, file: !1, line: 22, type: !2, scopeLine: 22, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!15 = !DILocation(line: 22, column: 1, scope: !14)
!16 = distinct !DISubprogram(name: "polyrust_rt_nest_plain", scope: !1, file: !1, line: 23, type: !2, scopeLine: 23, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!17 = !DILocation(line: 23, column: 1, scope: !16)
