// With -fopenmp, the outermost parallel loop of a region runs on OpenMP threads: its
// blocks move into a function of their own (CodeExtractor), a dispatcher runs it on
// the calling thread when it is short (trip count below the fork threshold: 512
// iterations of a loop with one loop inside) or the caller is inside a parallel region
// already, and otherwise forks a team whose threads each run their chunks of iterations.
// REQUIRES: libomp
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -fno-discard-value-names -S -emit-llvm \
// RUN:   -o - %s -Rpass=polyrust -Rpass-missed=polyrust 2>%t.remarks | %FileCheck %s
// RUN: %FileCheck --check-prefix=REMARK %s < %t.remarks
// Debug information moves with the blocks (the verifier runs on the result).
// RUN: %clang -O3 -g -fopenmp -fpass-plugin=%plugin -S -emit-llvm -o - %s \
// RUN:   | %FileCheck --check-prefix=DEBUG %s
// -polyrust-parallel=false keeps every loop on one thread, and so does a compile
// without -fopenmp; =true forks without -fopenmp (the program then links with -lomp).
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-parallel=false -S \
// RUN:   -emit-llvm -o - %s | %FileCheck --check-prefix=OFF %s
// RUN: %clang -O3 -fpass-plugin=%plugin -S -emit-llvm -o - %s | %FileCheck --check-prefix=OFF %s
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-parallel=true -S -emit-llvm \
// RUN:   -o - %s | %FileCheck --check-prefix=FORCED %s
// RUN: %not %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-parallel=maybe -c -o /dev/null \
// RUN:   %s 2>&1 | %FileCheck --check-prefix=BAD %s

#define N 1024
double A[N][N], B[N][N], x[N], y[N];

void scale(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = 2.0 * B[i][j] + x[j];
}

void sum_all(int n) {
  for (int i = 0; i < n; i++)
    y[0] += x[i];
}

// REMARK: remark: region in scale at {{.*}} optimized (loops in their original order, for OpenMP threads)
// REMARK: remark: region in scale at {{.*}}: loop over c0 runs in parallel on OpenMP threads (when it has 512 iterations or more and is not called from a parallel region), its iterations in chunks dealt to the threads back and forth, so that inner loops bounded by it weigh the same on every thread
// REMARK: remark: region in sum_all at {{.*}} left unchanged: {{.*}}no loop can run on OpenMP threads: reduction into a scalar the loop carries: runs in parallel only with -polyrust-allow-reassociation

// The caller: the dispatcher with the trip count last.
// CHECK-LABEL: define {{.*}}void @scale(
// CHECK: call void @polyrust.dispatch(i64 0, i64 0, {{.*}}i64 %[[TRIPS:[^ )]+]])
// CHECK-LABEL: define {{.*}}void @sum_all(
// CHECK-NOT: polyrust
// CHECK: ret void
// The loop itself, from iteration %first to %end of the whole loop; vectorized.
// CHECK-LABEL: define internal void @scale.polyrust.parallel(i64 %polyrust.first, i64 %polyrust.end,
// CHECK: <{{[0-9]+}} x double>
// The microtask: its thread's chunks of ceil(trips / (threads * 8)) iterations, dealt
// out in rounds back and forth (round r: chunk r * threads + thread when r is even,
// r * threads + threads - 1 - thread when odd), until a chunk starts past the end.
// CHECK-LABEL: define internal void @polyrust.microtask(ptr %0, ptr %1, ptr %2)
// CHECK: %[[THREAD:[0-9]+]] = sext i32 %{{[0-9]+}} to i64
// CHECK: call i32 @omp_get_num_threads()
// CHECK: %[[THREADS:[0-9]+]] = sext i32 %{{[0-9]+}} to i64
// CHECK: %[[ROUND:[0-9]+]] = shl nsw i64 %[[THREADS]], 3
// CHECK: %[[CHUNK:[0-9]+]] = sdiv i64 %{{[0-9]+}}, %[[ROUND]]
// CHECK: polyrust.chunk:
// CHECK: %[[FIRST:[0-9]+]] = phi i64
// CHECK: %[[R:polyrust.round[0-9]*]] = phi i64 [ %[[NEXT:[0-9]+]], %polyrust.chunk ], [ 0, %entry ]
// CHECK: %[[END:[0-9]+]] = add i64 %[[FIRST]], %[[CHUNK]]
// CHECK: %[[CLAMPED:[0-9]+]] = {{.*}}call i64 @llvm.smin.i64(i64 %[[END]], i64 %polyrust.trips)
// CHECK: call void @scale.polyrust.parallel(i64 %[[FIRST]], i64 %[[CLAMPED]],
// CHECK: %[[NEXT]] = add i64 %[[R]], 1
// CHECK: and i64 %[[R]], 1
// CHECK: select i1 %{{.*}}, i64 %{{[0-9]+}}, i64 %[[THREAD]]
// CHECK: mul i64 %[[NEXT]], %[[THREADS]]
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.chunk, label %polyrust.rounds.end
// The dispatcher: serial below the threshold or inside a parallel region, else a fork.
// CHECK-LABEL: define internal void @polyrust.dispatch(
// CHECK: %[[SHORT:[0-9]+]] = icmp slt i64 %4, 512
// CHECK: %[[IN:[0-9]+]] = {{.*}}call i32 @omp_in_parallel()
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.serial, label %polyrust.fork
// CHECK: polyrust.serial:
// CHECK-NEXT: call void @scale.polyrust.parallel(i64 0, i64 %4,
// CHECK: polyrust.fork:
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr nonnull @polyrust.omp.location, i32 1, ptr nonnull @polyrust.microtask, ptr nonnull %polyrust.shared)

// DEBUG: define internal void @scale.polyrust.parallel({{.*}}!dbg
// DEBUG: @__kmpc_fork_call

// OFF-NOT: __kmpc_fork_call
// OFF-NOT: polyrust.dispatch

// FORCED: call void {{.*}}@__kmpc_fork_call(

// BAD: -polyrust-parallel=maybe: give 'auto' {{.*}}, 'true' {{.*}} or 'false' (never)
