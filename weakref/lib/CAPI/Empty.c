/* The library is made of whole static archives; see CMakeLists.txt. */
