#include "data/file_readers.h"

#include <array>
#include <cerrno>
#include <fstream>

#include "util/input_error.h"

namespace ampbench::data {
namespace {

// What is wrong with a data file's path, said as such: missing, a folder, a FIFO, a device, a link loop.
void require_file(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (std::filesystem::is_regular_file(status)) return;
  if (error.value() != ELOOP && !std::filesystem::exists(status))
    throw util::InputError("missing data file " + path.string());
  std::string problem = "is not a regular file";
  if (error.value() == ELOOP)
    problem = "is a loop of symbolic links";
  else if (std::filesystem::is_directory(status))
    problem = "is a directory";
  else if (std::filesystem::is_fifo(status))
    problem = "is a FIFO";
  else if (std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status))
    problem = "is a device";
  throw util::InputError("data file " + path.string() + " " + problem);
}

uint64_t file_size_of(const std::filesystem::path& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw util::InputError("cannot read " + path.string() + ": " + error.message());
  return size;
}

// `count` bytes from `offset`, all of them or an error.
std::vector<uint8_t> read_range(const std::filesystem::path& path, uint64_t offset, uint64_t count) {
  std::vector<uint8_t> bytes(count);
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.seekg(std::streamoff(offset)) ||
      !in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(count)))
    throw util::InputError("cannot read " + path.string());
  return bytes;
}

uint32_t big_endian_u32(const std::vector<uint8_t>& bytes, size_t offset) {
  return (uint32_t(bytes[offset]) << 24) | (uint32_t(bytes[offset + 1]) << 16) |
         (uint32_t(bytes[offset + 2]) << 8) | uint32_t(bytes[offset + 3]);
}

// An IDX file of unsigned bytes with `rank` dimensions: its dimensions and data. The header is read and
// checked first (the magic number, no zero dimension, a size product that cannot overflow and equals
// the file's size), so a file whose header lies is refused before its data is read.
struct IdxFile {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

IdxFile read_idx(const std::filesystem::path& path, int rank) {
  require_file(path);
  const uint64_t header = 4 + 4 * uint64_t(rank), size = file_size_of(path);
  if (size < header) throw util::InputError(path.string() + " is too short for an IDX header");
  const auto head = read_range(path, 0, header);
  const uint32_t magic = big_endian_u32(head, 0);
  if (magic != 0x0800u + uint32_t(rank)) {
    throw util::InputError(path.string() + " has magic number " + std::to_string(magic) + ", expected " +
                           std::to_string(0x0800 + rank) + " (an IDX file of " + std::to_string(rank) +
                           "-dimensional unsigned bytes)");
  }
  IdxFile out;
  uint64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    const uint32_t dim = big_endian_u32(head, 4 + 4 * size_t(i));
    if (dim == 0 && i > 0)
      throw util::InputError(path.string() + ": dimension " + std::to_string(i + 1) + " is 0");
    if (__builtin_mul_overflow(elements, uint64_t(dim), &elements))
      throw util::InputError(path.string() + ": its header's dimensions multiply past 2^64 bytes (not IDX)");
    out.dims.push_back(dim);
  }
  if (elements != size - header) {
    const bool truncated = elements > size - header;
    const auto promised =
        elements > UINT64_MAX - header ? "more than 2^64" : std::to_string(header + elements);
    throw util::InputError(path.string() + " holds " + std::to_string(size) + " bytes; its header says " +
                           promised + (truncated ? " (truncated)" : ""));
  }
  out.data = read_range(path, header, elements);
  return out;
}

std::pair<torch::Tensor, torch::Tensor> read_mnist_split(const std::filesystem::path& dir,
                                                         const std::string& prefix) {
  const auto images_path = dir / (prefix + "-images-idx3-ubyte");
  const auto labels_path = dir / (prefix + "-labels-idx1-ubyte");
  auto images_file = read_idx(images_path, 3);
  auto labels_file = read_idx(labels_path, 1);
  const auto& dims = images_file.dims;
  if (dims[0] != labels_file.dims[0]) {
    throw util::InputError(images_path.string() + " holds " + std::to_string(dims[0]) + " images but " +
                           labels_path.string() + " " + std::to_string(labels_file.dims[0]) + " labels");
  }
  if (dims[0] == 0) throw util::InputError(images_path.string() + " holds no images");
  auto images = torch::from_blob(images_file.data.data(), {dims[0], 1, dims[1], dims[2]}, torch::kUInt8)
                    .to(torch::kFloat32)
                    .div_(255.0);
  auto labels = torch::from_blob(labels_file.data.data(), {dims[0]}, torch::kUInt8).to(torch::kInt64);
  if (labels.max().item<int64_t>() > 9) {
    throw util::InputError(labels_path.string() + " has a label above 9");
  }
  return {images, labels};
}

constexpr int64_t kCifarRecord = 1 + 3 * 32 * 32;

std::pair<torch::Tensor, torch::Tensor> read_cifar_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<torch::Tensor> images, labels;
  for (const auto& path : paths) {
    require_file(path);
    const auto size = file_size_of(path);  // checked before anything is read
    if (size == 0 || size % kCifarRecord != 0) {
      throw util::InputError(path.string() + " holds " + std::to_string(size) +
                             " bytes, not a whole number of 3,073-byte CIFAR-10 records");
    }
    auto bytes = read_range(path, 0, size);
    const int64_t n = int64_t(bytes.size()) / kCifarRecord;
    auto records = torch::from_blob(bytes.data(), {n, kCifarRecord}, torch::kUInt8);
    auto label = records.select(1, 0).to(torch::kInt64);
    if (label.max().item<int64_t>() > 9) throw util::InputError(path.string() + " has a label above 9");
    labels.push_back(label);
    images.push_back(
        records.narrow(1, 1, kCifarRecord - 1).reshape({n, 3, 32, 32}).to(torch::kFloat32).div_(255.0));
  }
  return {torch::cat(images), torch::cat(labels)};
}

std::pair<torch::Tensor, torch::Tensor> read_token_windows(const std::filesystem::path& path, int64_t context,
                                                           int64_t vocab, int64_t limit) {
  require_file(path);
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) throw util::InputError("cannot read " + path.string());
  if (size % 2 != 0) {
    throw util::InputError(path.string() + " holds an odd number of bytes (" + std::to_string(size) +
                           "): not uint16 token ids");
  }
  const int64_t count = int64_t(size) / 2;
  const int64_t all_windows = (count - 1) / context;
  if (all_windows < 1) {
    throw util::InputError(path.string() + " holds " + std::to_string(count) + " tokens; a sequence needs " +
                           std::to_string(context + 1));
  }
  const int64_t windows = limit > 0 && limit < all_windows ? limit : all_windows;
  // Only the tokens the windows use are read (and checked): a corpus can be gigabytes where a run
  // takes a few thousand windows of it.
  const int64_t tokens = windows * context + 1;
  // Little-endian uint16 as nanoGPT's numpy writes them; this reader assumes a little-endian host.
  auto raw = torch::empty({tokens}, torch::kUInt16);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(static_cast<char*>(raw.data_ptr()), std::streamsize(tokens * 2))) {
    throw util::InputError("cannot read " + path.string());
  }
  auto ids = raw.to(torch::kInt64);
  auto [largest, position] = ids.max(0);
  if (largest.item<int64_t>() >= vocab) {
    throw util::InputError(path.string() + ": token id " + std::to_string(largest.item<int64_t>()) +
                           " at position " + std::to_string(position.item<int64_t>()) +
                           " is not below the vocabulary size " + std::to_string(vocab));
  }
  // Inputs and targets are two overlapping views of the one buffer of ids.
  return {ids.narrow(0, 0, windows * context).view({windows, context}),
          ids.narrow(0, 1, windows * context).view({windows, context})};
}

}  // namespace

Dataset read_mnist(const std::filesystem::path& dir) {
  Dataset d;
  std::tie(d.train_inputs, d.train_labels) = read_mnist_split(dir, "train");
  std::tie(d.val_inputs, d.val_labels) = read_mnist_split(dir, "t10k");
  // A model is built for one image size: training and validation images must share it.
  if (d.val_inputs.sizes().slice(1) != d.train_inputs.sizes().slice(1)) {
    throw util::InputError((dir / "t10k-images-idx3-ubyte").string() + " holds images of " +
                           std::to_string(d.val_inputs.size(2)) + "x" + std::to_string(d.val_inputs.size(3)) +
                           " pixels, but " + (dir / "train-images-idx3-ubyte").string() + " of " +
                           std::to_string(d.train_inputs.size(2)) + "x" +
                           std::to_string(d.train_inputs.size(3)));
  }
  d.sample_shape = {1, d.train_inputs.size(2), d.train_inputs.size(3)};
  d.num_classes = 10;
  return d;
}

Dataset read_cifar10(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> train;
  for (int i = 1; i <= 5; ++i) train.push_back(dir / ("data_batch_" + std::to_string(i) + ".bin"));
  Dataset d;
  std::tie(d.train_inputs, d.train_labels) = read_cifar_files(train);
  std::tie(d.val_inputs, d.val_labels) = read_cifar_files({dir / "test_batch.bin"});
  d.sample_shape = {3, 32, 32};
  d.num_classes = 10;
  return d;
}

Dataset read_token_files(const std::filesystem::path& dir, int64_t context, int64_t vocab,
                         int64_t train_limit, int64_t val_limit) {
  Dataset d;
  std::tie(d.train_inputs, d.train_labels) =
      read_token_windows(dir / "train.bin", context, vocab, train_limit);
  std::tie(d.val_inputs, d.val_labels) = read_token_windows(dir / "val.bin", context, vocab, val_limit);
  d.sample_shape = {context};
  d.num_classes = vocab;
  return d;
}

}  // namespace ampbench::data
