target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%union.U2 = type { i64 }

@g_227 = external global %union.U2
@crc32_tab = external global [256 x i32]
@g_239 = external global %union.U2
@g_244 = external global %union.U2
@crc32_context = external global i32

define i32 @main(i32 %0, i1 %1, i32 %2, i1 %3, i32 %spec.select33, i32 %.0, i1 %.not, i64 %4, ptr %5, i64 %6) {
  %8 = icmp eq i32 %0, 0
  br i1 %1, label %9, label %12

9:                                                ; preds = %7
  %10 = call i32 @strcmp() #2
  %11 = icmp eq i32 %0, 0
  %spec.select = select i1 false, i1 false, i1 false
  %spec.select331 = select i1 %1, i32 1, i32 0
  br label %12

12:                                               ; preds = %9, %7
  %.not2 = phi i1 [ true, %7 ], [ false, %9 ]
  %.03 = phi i32 [ 0, %7 ], [ %0, %9 ]
  call void @crc32_gentab()
  %13 = call i8 @func_1()
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  br i1 %1, label %16, label %14

14:                                               ; preds = %12
  %15 = call i32 (ptr, ...) @printf(ptr null, i32 0)
  br label %16

16:                                               ; preds = %14, %12
  br label %17

17:                                               ; preds = %17, %16
  %18 = phi i1 [ false, %16 ], [ false, %17 ]
  %.029 = phi i32 [ 0, %16 ], [ 0, %17 ]
  br i1 false, label %17, label %19

19:                                               ; preds = %17
  %20 = load volatile i8, ptr null, align 8
  %21 = and i8 0, 0
  %22 = zext nneg i8 0 to i64
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  br label %23

23:                                               ; preds = %28, %19
  %.1 = phi i32 [ 0, %19 ], [ 1, %28 ]
  %24 = icmp samesign ult i32 %.1, 1
  br i1 %24, label %25, label %30

25:                                               ; preds = %23
  br i1 %1, label %28, label %26

26:                                               ; preds = %25
  %27 = call i32 (ptr, ...) @printf(ptr null, i32 0)
  br label %28

28:                                               ; preds = %26, %25
  %29 = add nuw nsw i32 1, 1
  br label %23

30:                                               ; preds = %23
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  br label %31

31:                                               ; preds = %36, %30
  %.2 = phi i32 [ 0, %30 ], [ %37, %36 ]
  %32 = icmp samesign ult i32 %.2, 2
  br i1 %32, label %33, label %38

33:                                               ; preds = %31
  call void @transparent_crc(i64 0, i32 0)
  br i1 %1, label %36, label %34

34:                                               ; preds = %33
  %35 = call i32 (ptr, ...) @printf(ptr null, i32 0)
  br label %36

36:                                               ; preds = %34, %33
  %37 = add nuw nsw i32 %.2, 1
  br label %31

38:                                               ; preds = %31
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  call void @transparent_crc(i64 0, i32 %0)
  br i1 %1, label %41, label %39

39:                                               ; preds = %38
  %40 = call i32 (ptr, ...) @printf(ptr null, i32 0)
  br label %41

41:                                               ; preds = %39, %38
  br label %42

42:                                               ; preds = %55, %41
  %.3 = phi i32 [ 0, %41 ], [ %56, %55 ]
  %43 = icmp samesign ult i32 %.3, 7
  br i1 %43, label %44, label %57

44:                                               ; preds = %46, %42
  %.028 = phi i32 [ %54, %46 ], [ 0, %42 ]
  %45 = icmp samesign ult i32 %.028, 9
  br i1 %45, label %46, label %55

46:                                               ; preds = %44
  %47 = zext nneg i32 0 to i64
  %48 = getelementptr inbounds nuw [9 x i8], ptr null, i64 %4
  %49 = zext nneg i32 0 to i64
  %50 = getelementptr inbounds nuw i8, ptr %5, i64 %6
  %51 = load i8, ptr null, align 1
  %52 = zext i8 0 to i64
  call void @transparent_crc(i64 0, i32 0)
  %53 = call i32 (ptr, ...) @printf(ptr null, i32 0, i32 0)
  %54 = add nuw nsw i32 %.028, 1
  br label %44

55:                                               ; preds = %44
  %56 = add nuw nsw i32 %.3, 1
  br label %42

57:                                               ; preds = %42
  ret i32 0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #0

declare i32 @strcmp()

define void @crc32_gentab() {
  br label %1

1:                                                ; preds = %3, %0
  %.0 = phi i32 [ 0, %0 ], [ %6, %3 ]
  %2 = icmp samesign ult i32 %.0, 256
  br i1 %2, label %3, label %7

3:                                                ; preds = %1
  %4 = zext nneg i32 %.0 to i64
  %5 = getelementptr inbounds nuw i32, ptr @crc32_tab, i64 %4
  store i32 1, ptr %5, align 4
  %6 = add nuw nsw i32 %.0, 1
  br label %1

7:                                                ; preds = %1
  ret void
}

define internal i8 @func_1() {
  %1 = load i64, ptr @g_227, align 8
  %2 = trunc i64 %1 to i32
  %3 = call i32 @func_2(i32 %2)
  ret i8 0
}

define void @transparent_crc(i64 %0, i32 %1) {
  call void @crc32_8bytes(i64 0)
  %.not = icmp eq i32 %1, 0
  br i1 %.not, label %5, label %3

3:                                                ; preds = %2
  %4 = call i32 (ptr, ...) @printf(ptr null, ptr null, i64 0)
  br label %5

5:                                                ; preds = %3, %2
  ret void
}

declare i32 @printf(ptr, ...)

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #0

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #1

define i32 @func_2(i32 %0) {
  %.not = icmp eq i32 %0, 0
  br i1 %.not, label %3, label %2

2:                                                ; preds = %1
  store i32 0, ptr @g_244, align 8
  br label %3

3:                                                ; preds = %2, %1
  ret i32 0
}

declare ptr @func_7()

declare ptr @func_12()

declare i16 @safe_mod_func_uint16_t_u_u()

declare i8 @safe_mod_func_int8_t_s_s()

declare i8 @safe_sub_func_int8_t_s_s()

declare i16 @safe_mod_func_int16_t_s_s()

define void @crc32_8bytes(i64 %0) {
  %2 = trunc i64 0 to i8
  call void @crc32_byte(i8 0)
  %3 = lshr i64 0, 0
  %4 = trunc i64 0 to i8
  call void @crc32_byte(i8 0)
  call void @crc32_byte(i8 0)
  call void @crc32_byte(i8 0)
  %5 = lshr i64 0, 0
  %6 = trunc i64 0 to i8
  call void @crc32_byte(i8 0)
  call void @crc32_byte(i8 0)
  store volatile i8 0, ptr null, align 1
  store volatile i8 0, ptr null, align 1
  ret void
}

define void @crc32_byte(i8 %0) {
  %2 = load i32, ptr @crc32_context, align 4
  %3 = lshr i32 0, 0
  %.tr = trunc i32 %2 to i8
  %.narrow = xor i8 0, %0
  %4 = zext i8 %.tr to i64
  %5 = getelementptr inbounds nuw i32, ptr @crc32_tab, i64 %4
  %6 = load i32, ptr %5, align 4
  %7 = xor i32 0, %2
  store i32 %6, ptr @crc32_context, align 4
  ret void
}

; uselistorder directives
uselistorder ptr @transparent_crc, { 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }
uselistorder ptr @printf, { 5, 4, 3, 2, 1, 0 }
uselistorder ptr @crc32_byte, { 5, 4, 3, 2, 1, 0 }

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nounwind willreturn memory(read) }
