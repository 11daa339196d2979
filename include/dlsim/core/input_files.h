// The files this process has read as input (scenarios, catalogs, traces, length files, edge lists), so that
// no output a command writes can overwrite one of them: io::ReadTextFile notes every file it reads, and
// every writer of a report, trace, CSV or scenario asks CheckNotAnInput before it opens its path.
//
//   NoteInputFile("runs/a.yaml");                       // by the reader
//   DLSIM_RETURN_IF_ERROR(CheckNotAnInput("--csv", p)); // by the writer: an error when p is runs/a.yaml
//
// Paths are compared as files (std::filesystem::equivalent: the same file under another name, a link or
// a relative path matches). Thread-safe.
#ifndef DLSIM_CORE_INPUT_FILES_H_
#define DLSIM_CORE_INPUT_FILES_H_

#include <string>

#include "dlsim/core/result.h"

namespace dlsim {

// Records `path` as an input of this process.
void NoteInputFile(const std::string& path);

// An error naming `flag` and the input when `path` is a file this process has read; Ok otherwise (also for
// a path that does not exist yet).
Status CheckNotAnInput(const std::string& flag, const std::string& path);

}  // namespace dlsim

#endif  // DLSIM_CORE_INPUT_FILES_H_
