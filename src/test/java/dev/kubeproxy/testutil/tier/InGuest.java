package dev.kubeproxy.testutil.tier;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/** The guest tier: commands run in a QEMU guest whose kernel has IPVS (this host's has none). */
@Target(ElementType.TYPE)
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Tag(Tiers.GUEST)
public @interface InGuest {}
