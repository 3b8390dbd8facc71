# Copies onnx.proto to OUT, making sure it asks protoc for MessageLite code
# (Debian's copy already does; upstream's does not). Run with cmake -DIN=.. -DOUT=.. -P
file(READ "${IN}" txt)
if(NOT txt MATCHES "option[ \t]+optimize_for[ \t]*=[ \t]*LITE_RUNTIME[ \t]*;")
  string(REGEX REPLACE "option[ \t]+optimize_for[ \t]*=[ \t]*[A-Z_]+[ \t]*;" "" txt "${txt}")
  string(REGEX REPLACE "(\npackage[ \t]+[A-Za-z0-9_.]+[ \t]*;)" "\\1\noption optimize_for = LITE_RUNTIME;" txt "${txt}")
  if(NOT txt MATCHES "LITE_RUNTIME")
    message(FATAL_ERROR "could not insert optimize_for into ${IN}")
  endif()
endif()
file(WRITE "${OUT}.tmp" "${txt}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
