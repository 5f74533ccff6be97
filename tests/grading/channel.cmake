# channel.cmake — grading_channel_generate(): from a chapter's contract header, the two sides of
# the grading channel (grading_channel.h):
#   PROXY     the checker's ex_* functions, each sending its call to the student's server;
#   DISPATCH  the server's table of the student's ex_* functions, each called from the arguments;
#   STUB      (optional, "" for none) a pristine stub file: every function returns NaN, as
#             exercises/ holds them before a student starts (the honesty tests grade these,
#             never the working exercises/ folder).
# The contract's prototypes are parsed here: `double ex_NAME(TYPE name, ...);` with TYPE one of
# double, int64_t or int (the conventions of exercises/*/ *_ex.h); anything else is a configure
# error naming the prototype. A decision exercise returns a struct the contract defines as
# `typedef struct { int64_t a, b; int64_t c; } NAME;` (int64_t fields only, at most
# GRADING_MAX_CHOICE): its fields travel as the reply's choice[] (grading_channel.h), and its
# pristine stub returns every field 0 (no degree or strategy is 0: an invalid choice).
function(grading_channel_generate contract slug proxy dispatch stub)
  # The generated files follow the contract: a changed header configures again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${contract})
  file(READ ${contract} text)
  # Comments out (they hold parentheses and the word "double"), lines joined.
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
  string(REGEX REPLACE "//[^\n]*" " " text "${text}")
  string(REGEX REPLACE "[\r\n\t ]+" " " text "${text}")
  # The decision structs: NAME -> its field count (choice_NAME).
  set(choice_types "")
  # (';' separates CMake list items: '|' stands for it here.)
  string(REPLACE ";" "|" struct_text "${text}")
  string(REGEX MATCHALL "typedef struct ?{[^}]*} ?[a-z_0-9]+ ?[|]" structs "${struct_text}")
  foreach(st ${structs})
    string(REGEX REPLACE "^.*} ?([a-z_0-9]+) ?[|]$" "\\1" type_name "${st}")
    string(REGEX REPLACE "^typedef struct ?{([^}]*)}.*$" "\\1" body "${st}")
    if(NOT body MATCHES "^( ?int64_t [a-z_0-9]+( ?, ?[a-z_0-9]+)* ?[|] ?)+$")
      message(FATAL_ERROR "${contract}: struct ${type_name}: only int64_t fields may cross the "
                          "grading channel")
    endif()
    string(REGEX REPLACE "int64_t|[|]|," " " names "${body}")
    string(REGEX MATCHALL "[a-z_0-9]+" names "${names}")
    list(LENGTH names n_fields)
    if(n_fields GREATER 16)
      message(FATAL_ERROR "${contract}: struct ${type_name} has more than 16 fields")
    endif()
    set(choice_${type_name} ${n_fields})
    list(APPEND choice_types ${type_name})
  endforeach()
  string(REGEX MATCHALL "[a-z_0-9]+ ex_[a-z0-9_]+ ?\\([^)]*\\)" protos "${text}")
  set(proxy_text "/* Generated from ${contract} by channel.cmake: the checker's proxies. */
#include <stdint.h>
#include <string.h>

#include \"${slug}_ex.h\"
#include \"grading_channel.h\"
")
  set(dispatch_text "/* Generated from ${contract} by channel.cmake: the server's dispatch. */
#include <stdint.h>
#include <string.h>

#include \"${slug}_ex.h\"
#include \"grading_channel.h\"
")
  set(stub_text "/* Generated from ${contract} by channel.cmake: a pristine stub. */
#include <math.h>
#include <stdint.h>

#include \"${slug}_ex.h\"
")
  set(table "")
  set(index 0)
  foreach(proto ${protos})
    string(REGEX REPLACE "^([a-z_0-9]+) (ex_[a-z0-9_]+) ?\\(.*$" "\\2" name "${proto}")
    string(REGEX REPLACE "^([a-z_0-9]+) .*$" "\\1" ret "${proto}")
    if(NOT ret STREQUAL "double" AND NOT ret IN_LIST choice_types)
      message(FATAL_ERROR "${contract}: ${name} returns '${ret}': a double or a struct of "
                          "int64_t fields defined in the contract (typedef struct {...} NAME;)")
    endif()
    string(REGEX REPLACE "^[^(]*\\((.*)\\)$" "\\1" params "${proto}")
    string(STRIP "${params}" params)
    set(formals "")
    set(pack "")
    set(actuals "")
    set(kinds "")
    set(n 0)
    if(NOT params STREQUAL "void" AND NOT params STREQUAL "")
      string(REPLACE "," ";" param_list "${params}")
      foreach(param ${param_list})
        string(STRIP "${param}" param)
        string(REGEX REPLACE "^(.*[^a-zA-Z0-9_])[a-zA-Z_][a-zA-Z0-9_]*$" "\\1" type "${param}")
        string(STRIP "${type}" type)
        if(type STREQUAL "double")
          set(field d)
          set(cast "")
        elseif(type STREQUAL "int64_t")
          set(field l)
          set(cast "")
        elseif(type STREQUAL "int")
          set(field l)
          set(cast "(int)")
        else()
          message(FATAL_ERROR "${contract}: ${name}: parameter '${param}' is not double, int64_t "
                              "or int (the grading channel carries only these)")
        endif()
        if(n GREATER 0)
          string(APPEND formals ", ")
          string(APPEND actuals ", ")
        endif()
        string(APPEND formals "${type} a${n}")
        string(APPEND pack "  args[${n}].${field} = a${n};\n")
        string(APPEND actuals "${cast}a[${n}].${field}")
        string(APPEND kinds "${field}")
        math(EXPR n "${n} + 1")
      endforeach()
    endif()
    if(n GREATER 16)
      message(FATAL_ERROR "${contract}: ${name} has more than 16 parameters (GRADING_MAX_ARGS)")
    endif()
    if(n EQUAL 0)
      set(formals void)
      set(decl "  const grading_value *args = 0;\n")
    else()
      set(decl "  grading_value args[${n}];\n")
    endif()
    set(voids "")
    foreach(k RANGE ${n})
      if(k LESS n)
        string(APPEND voids "  (void)a${k};\n")
      endif()
    endforeach()
    if(ret STREQUAL "double")
      string(APPEND proxy_text "
double ${name}(${formals}) {
${decl}${pack}  return grading_call(${index}, \"${name}\", \"${kinds}\", args, ${n});
}
")
      string(APPEND dispatch_text "
static double call_${index}(const grading_value *a) {
  (void)a;
  return ${name}(${actuals});
}
")
      string(APPEND table "    {\"${name}\", ${n}, call_${index}, 0, 0},\n")
      string(APPEND stub_text "
double ${name}(${formals}) {
${voids}  return NAN;
}
")
    else()
      set(k ${choice_${ret}})
      string(APPEND proxy_text "
_Static_assert(sizeof(${ret}) == ${k} * sizeof(int64_t), \"${ret}: int64_t fields only\");
${ret} ${name}(${formals}) {
${decl}${pack}  int64_t fields[${k}];
  ${ret} out;
  grading_call_choice(${index}, \"${name}\", \"${kinds}\", args, ${n}, fields, ${k});
  memcpy(&out, fields, sizeof out);
  return out;
}
")
      string(APPEND dispatch_text "
_Static_assert(sizeof(${ret}) == ${k} * sizeof(int64_t), \"${ret}: int64_t fields only\");
static void choose_${index}(const grading_value *a, int64_t *fields) {
  (void)a;
  ${ret} out = ${name}(${actuals});
  memcpy(fields, &out, sizeof out);
}
")
      string(APPEND table "    {\"${name}\", ${n}, 0, ${k}, choose_${index}},\n")
      string(APPEND stub_text "
${ret} ${name}(${formals}) {
${voids}  ${ret} none = {0};
  return none;
}
")
    endif()
    math(EXPR index "${index} + 1")
  endforeach()
  if(index EQUAL 0)
    message(FATAL_ERROR "${contract}: no `double ex_...(...)` prototype found")
  endif()
  string(APPEND dispatch_text "
const grading_function grading_functions[] = {
${table}};
const size_t grading_n_functions = ${index};
")
  file(CONFIGURE OUTPUT ${proxy} CONTENT "${proxy_text}" @ONLY)
  file(CONFIGURE OUTPUT ${dispatch} CONTENT "${dispatch_text}" @ONLY)
  if(stub)
    file(CONFIGURE OUTPUT ${stub} CONTENT "${stub_text}" @ONLY)
  endif()
endfunction()
