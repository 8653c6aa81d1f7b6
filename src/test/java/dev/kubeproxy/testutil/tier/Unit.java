package dev.kubeproxy.testutil.tier;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/** The unit tier: pure Java (verticles on loopback included), no root and no kernel rules. */
@Target(ElementType.TYPE)
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Tag(Tiers.UNIT)
public @interface Unit {}
