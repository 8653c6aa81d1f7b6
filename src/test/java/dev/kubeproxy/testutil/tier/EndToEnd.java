package dev.kubeproxy.testutil.tier;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/** The e2e tier: the packaged agent (target/kube-proxy.jar) run as a process; Failsafe, after package. */
@Target(ElementType.TYPE)
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Tag(Tiers.E2E)
public @interface EndToEnd {}
