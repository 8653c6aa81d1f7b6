package dev.kubeproxy.testutil.tier;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The kernel tier: real netfilter rules in a network namespace the test creates. Skipped, saying
 * why, when not root or without the ip command; each class still assumes the tools it needs.
 */
@Target(ElementType.TYPE)
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Tag(Tiers.KERNEL)
@ExtendWith(KernelHost.class)
public @interface Kernel {}
