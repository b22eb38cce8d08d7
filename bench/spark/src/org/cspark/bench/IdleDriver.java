/*
 * IdleDriver.java — a Spark application that only holds its executors: it creates its context
 * (so the cluster backend starts and asks for spark.executor.instances executors), prints
 *   idle-driver: context ready
 * on stdout once the constructor has returned (Spark has then registered its shutdown hook, which
 * stops the context and, on Kubernetes, deletes the executor pods), and sleeps until the process is
 * signalled. Used by bench/spark_k8s_alloc.sh to measure Spark's Kubernetes allocator on executors
 * that never register (fake nodes run no image), the counterpart of testjobs.so --class slow.
 *
 * usage: IdleDriver   (everything else comes from spark-submit)
 */
package org.cspark.bench;

import org.apache.spark.api.java.JavaSparkContext;

public final class IdleDriver {
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 0) Bench.usage("IdleDriver");
        JavaSparkContext sc = Bench.context("idle-driver");
        System.out.println("idle-driver: context ready, application " + sc.sc().applicationId());
        System.out.flush();
        while (!sc.sc().isStopped()) Thread.sleep(1000);
    }
}
