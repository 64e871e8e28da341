#pragma once
// COLLBENCH_FOR_EACH_MEMBER(step, (context...), member...) expands step(context..., member) for
// each member listed: what lets a table name a struct's members once and derive from that list
// both its stored type and the copies between a row and the record it stores (C++20 has no
// reflection to list them).
#define COLLBENCH_FOR_EACH_MEMBER(step, context, ...) \
  __VA_OPT__(COLLBENCH_EXPAND(COLLBENCH_FOR_EACH_STEP(step, context, __VA_ARGS__)))
#define COLLBENCH_FOR_EACH_STEP(step, context, member, ...)      \
  COLLBENCH_CALL(step, COLLBENCH_UNPARENTHESIZE context, member) \
  __VA_OPT__(COLLBENCH_FOR_EACH_AGAIN COLLBENCH_PARENS(step, context, __VA_ARGS__))
#define COLLBENCH_FOR_EACH_AGAIN() COLLBENCH_FOR_EACH_STEP
#define COLLBENCH_CALL(step, ...) step(__VA_ARGS__)
#define COLLBENCH_UNPARENTHESIZE(...) __VA_ARGS__
#define COLLBENCH_PARENS ()
// Rescans the list until every member has expanded (up to 4^4 of them).
#define COLLBENCH_EXPAND(...) \
  COLLBENCH_EXPAND3(COLLBENCH_EXPAND3(COLLBENCH_EXPAND3(COLLBENCH_EXPAND3(__VA_ARGS__))))
#define COLLBENCH_EXPAND3(...) \
  COLLBENCH_EXPAND2(COLLBENCH_EXPAND2(COLLBENCH_EXPAND2(COLLBENCH_EXPAND2(__VA_ARGS__))))
#define COLLBENCH_EXPAND2(...) \
  COLLBENCH_EXPAND1(COLLBENCH_EXPAND1(COLLBENCH_EXPAND1(COLLBENCH_EXPAND1(__VA_ARGS__))))
#define COLLBENCH_EXPAND1(...) __VA_ARGS__
