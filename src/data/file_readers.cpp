#include "data/file_readers.h"

#include <array>
#include <fstream>
#include <iterator>

#include "util/input_error.h"

namespace ampbench::data {
namespace {

void require_file(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw util::InputError("missing data file " + path.string());
  }
}

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  require_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::InputError("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t big_endian_u32(const std::vector<uint8_t>& bytes, size_t offset) {
  return (uint32_t(bytes[offset]) << 24) | (uint32_t(bytes[offset + 1]) << 16) |
         (uint32_t(bytes[offset + 2]) << 8) | uint32_t(bytes[offset + 3]);
}

// One IDX file of unsigned bytes with `rank` dimensions: returns the dimensions; the data follows them.
std::vector<int64_t> idx_dimensions(const std::vector<uint8_t>& bytes, int rank,
                                    const std::filesystem::path& path) {
  const size_t header = 4 + 4 * size_t(rank);
  if (bytes.size() < header) throw util::InputError(path.string() + " is too short for an IDX header");
  const uint32_t magic = big_endian_u32(bytes, 0);
  if (magic != 0x0800u + uint32_t(rank)) {
    throw util::InputError(path.string() + " has magic number " + std::to_string(magic) + ", expected " +
                           std::to_string(0x0800 + rank) + " (an IDX file of " + std::to_string(rank) +
                           "-dimensional unsigned bytes)");
  }
  std::vector<int64_t> dims;
  size_t expected = header;
  size_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    dims.push_back(big_endian_u32(bytes, 4 + 4 * size_t(i)));
    elements *= size_t(dims.back());
  }
  expected += elements;
  if (bytes.size() != expected) {
    throw util::InputError(path.string() + " holds " + std::to_string(bytes.size()) +
                           " bytes; its header says " + std::to_string(expected) +
                           (bytes.size() < expected ? " (truncated)" : ""));
  }
  return dims;
}

std::pair<torch::Tensor, torch::Tensor> read_mnist_split(const std::filesystem::path& dir,
                                                         const std::string& prefix) {
  const auto images_path = dir / (prefix + "-images-idx3-ubyte");
  const auto labels_path = dir / (prefix + "-labels-idx1-ubyte");
  auto image_bytes = read_bytes(images_path);
  auto label_bytes = read_bytes(labels_path);
  auto image_dims = idx_dimensions(image_bytes, 3, images_path);
  auto label_dims = idx_dimensions(label_bytes, 1, labels_path);
  if (image_dims[0] != label_dims[0]) {
    throw util::InputError(images_path.string() + " holds " + std::to_string(image_dims[0]) + " images but " +
                           labels_path.string() + " " + std::to_string(label_dims[0]) + " labels");
  }
  if (image_dims[0] == 0) throw util::InputError(images_path.string() + " holds no images");
  auto images = torch::from_blob(image_bytes.data() + 16, {image_dims[0], 1, image_dims[1], image_dims[2]},
                                 torch::kUInt8)
                    .to(torch::kFloat32)
                    .div_(255.0);
  auto labels = torch::from_blob(label_bytes.data() + 8, {label_dims[0]}, torch::kUInt8).to(torch::kInt64);
  if (labels.max().item<int64_t>() > 9) {
    throw util::InputError(labels_path.string() + " has a label above 9");
  }
  return {images, labels};
}

constexpr int64_t kCifarRecord = 1 + 3 * 32 * 32;

std::pair<torch::Tensor, torch::Tensor> read_cifar_files(const std::vector<std::filesystem::path>& paths) {
  std::vector<torch::Tensor> images, labels;
  for (const auto& path : paths) {
    auto bytes = read_bytes(path);
    if (bytes.empty() || bytes.size() % kCifarRecord != 0) {
      throw util::InputError(path.string() + " holds " + std::to_string(bytes.size()) +
                             " bytes, not a whole number of 3,073-byte CIFAR-10 records");
    }
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
